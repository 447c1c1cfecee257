import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveOptions, OptionError } from '../../src/domain/deployment-options.js';
import type { ExternalAuthProvider } from '../../src/domain/external-auth/external-auth-provider.js';
import { gitCredentials } from '../../src/domain/external-auth/git-credentials.js';
import { matchProvider, regexText, remoteUrlForms } from '../../src/domain/external-auth/match-provider.js';
import { readExternalAuthProviders } from '../../src/domain/options/external-auth.js';

/** The providers of `fields`, given as `COVE_EXTERNAL_AUTH_<n>_<FIELD>` for each entry n. */
function fromEnv(...entries: Record<string, string>[]): readonly ExternalAuthProvider[] {
  const env: Record<string, string> = {};
  entries.forEach((fields, index) => {
    for (const [field, value] of Object.entries(fields)) env[`COVE_EXTERNAL_AUTH_${index}_${field}`] = value;
  });
  return readExternalAuthProviders({ env });
}

function only(...entries: Record<string, string>[]): ExternalAuthProvider {
  const [provider] = fromEnv(...entries);
  assert.ok(provider);
  return provider;
}

function refused(read: () => unknown, message: RegExp): void {
  assert.throws(read, (error: unknown) => {
    assert.ok(error instanceof OptionError, `expected an OptionError, got ${String(error)}`);
    assert.match(error.message, message);
    return true;
  });
}

describe('external auth providers from the environment and the config file', () => {
  it('reads every field of indexed variables, in any order and any number', () => {
    const env: Record<string, string> = {};
    for (let n = 11; n >= 0; n--) {
      env[`COVE_EXTERNAL_AUTH_${n}_CLIENT_ID`] = `client-${n}`;
      env[`COVE_EXTERNAL_AUTH_${n}_TYPE`] = 'github';
      env[`COVE_EXTERNAL_AUTH_${n}_ID`] = `gh-${n}`;
    }
    Object.assign(env, {
      COVE_EXTERNAL_AUTH_3_CLIENT_SECRET: 'secret',
      COVE_EXTERNAL_AUTH_3_AUTH_URL: 'https://ghe.example.com/login/oauth/authorize',
      COVE_EXTERNAL_AUTH_3_TOKEN_URL: 'https://ghe.example.com/login/oauth/access_token',
      COVE_EXTERNAL_AUTH_3_VALIDATE_URL: 'https://ghe.example.com/api/v3/user',
      COVE_EXTERNAL_AUTH_3_REVOKE_URL: 'https://ghe.example.com/api/v3/applications/x/grant',
      COVE_EXTERNAL_AUTH_3_DEVICE_FLOW: 'true',
      COVE_EXTERNAL_AUTH_3_DEVICE_CODE_URL: 'https://ghe.example.com/login/device/code',
      COVE_EXTERNAL_AUTH_3_NO_REFRESH: '1',
      COVE_EXTERNAL_AUTH_3_SCOPES: 'repo read:user',
      COVE_EXTERNAL_AUTH_3_EXTRA_TOKEN_KEYS: 'scope token_type',
      COVE_EXTERNAL_AUTH_3_REGEX: '^https://ghe\\.example\\.com/',
      COVE_EXTERNAL_AUTH_3_DISPLAY_NAME: 'GitHub Enterprise',
      COVE_EXTERNAL_AUTH_3_DISPLAY_ICON: '/icon/ghe.svg',
      COVE_EXTERNAL_AUTH_3_APP_INSTALL_URL: 'https://ghe.example.com/apps/cove/installations/new',
      COVE_EXTERNAL_AUTH_3_APP_INSTALLATIONS_URL: 'https://ghe.example.com/api/v3/user/installations',
      COVE_EXTERNAL_AUTH_3_PKCE_METHODS: 'none',
    });
    const providers = readExternalAuthProviders({ env });
    assert.deepEqual(
      providers.map((provider) => provider.id),
      Array.from({ length: 12 }, (_, n) => `gh-${n}`),
    );
    const ghe = providers[3];
    assert.ok(ghe);
    assert.deepEqual(
      { ...ghe, regex: regexText(ghe) },
      {
        id: 'gh-3',
        type: 'github',
        clientId: 'client-3',
        clientSecret: 'secret',
        authUrl: 'https://ghe.example.com/login/oauth/authorize',
        tokenUrl: 'https://ghe.example.com/login/oauth/access_token',
        validateUrl: 'https://ghe.example.com/api/v3/user',
        revokeUrl: 'https://ghe.example.com/api/v3/applications/x/grant',
        deviceFlow: true,
        deviceCodeUrl: 'https://ghe.example.com/login/device/code',
        noRefresh: true,
        scopes: ['repo', 'read:user'],
        extraTokenKeys: ['scope', 'token_type'],
        regex: '^https://ghe\\.example\\.com/',
        displayName: 'GitHub Enterprise',
        displayIcon: '/icon/ghe.svg',
        appInstallUrl: 'https://ghe.example.com/apps/cove/installations/new',
        appInstallationsUrl: 'https://ghe.example.com/api/v3/user/installations',
        codeChallengeMethodsSupported: ['none'],
      },
    );
  });

  it('lists the file’s providers first, then the environment’s, then the older GITAUTH variables', () => {
    const providers = readExternalAuthProviders({
      yaml: {
        externalAuthProviders: [
          { type: 'gitlab', client_id: 'gl', client_secret: 'x', scopes: ['api', 'read_user'], device_flow: false, no_refresh: true },
        ],
      },
      env: {
        COVE_EXTERNAL_AUTH_0_TYPE: 'github',
        COVE_EXTERNAL_AUTH_0_CLIENT_ID: 'gh',
        COVE_GITAUTH_0_TYPE: 'bitbucket',
        COVE_GITAUTH_0_CLIENT_ID: 'bb',
      },
    });
    assert.deepEqual(
      providers.map((provider) => [provider.id, provider.type, provider.clientId]),
      [
        ['gitlab', 'gitlab', 'gl'],
        ['github', 'github', 'gh'],
        ['bitbucket', 'bitbucket-cloud', 'bb'],
      ],
    );
    assert.deepEqual(providers[0]?.scopes, ['api', 'read_user']);
    assert.equal(providers[0]?.noRefresh, true);
  });

  it('fills in each type’s defaults', () => {
    const github = only({ TYPE: 'github', CLIENT_ID: 'abc' });
    assert.equal(github.authUrl, 'https://github.com/login/oauth/authorize');
    assert.equal(github.tokenUrl, 'https://github.com/login/oauth/access_token');
    assert.equal(github.validateUrl, 'https://api.github.com/user');
    assert.equal(github.revokeUrl, 'https://api.github.com/applications/abc/grant');
    assert.equal(github.deviceCodeUrl, 'https://github.com/login/device/code');
    assert.deepEqual(github.scopes, ['repo', 'workflow']);
    assert.deepEqual([github.displayName, github.displayIcon], ['GitHub', '/icon/github.svg']);
    assert.deepEqual(github.codeChallengeMethodsSupported, ['S256']);

    const gitlab = only({ TYPE: 'gitlab', CLIENT_ID: 'x' });
    assert.equal(gitlab.tokenUrl, 'https://gitlab.com/oauth/token');
    assert.equal(gitlab.validateUrl, 'https://gitlab.com/oauth/token/info');
    assert.equal(gitlab.revokeUrl, 'https://gitlab.com/oauth/revoke');
    const selfHosted = only({ TYPE: 'gitlab', CLIENT_ID: 'x', AUTH_URL: 'https://git.example.com/oauth/authorize' });
    assert.equal(selfHosted.tokenUrl, 'https://git.example.com/oauth/token');
    assert.equal(regexText(selfHosted), '^(https?://)?git\\.example\\.com(/.*)?$');

    const bitbucketServer = only({
      TYPE: 'bitbucket-server',
      CLIENT_ID: 'x',
      AUTH_URL: 'https://bb.example.com/rest/oauth2/latest/authorize',
    });
    assert.equal(bitbucketServer.tokenUrl, 'https://bb.example.com/rest/oauth2/latest/token');
    assert.equal(bitbucketServer.validateUrl, 'https://bb.example.com/rest/api/latest/inbox/pull-requests/count');
    assert.deepEqual(bitbucketServer.codeChallengeMethodsSupported, ['none']);

    const gitea = only({ TYPE: 'gitea', CLIENT_ID: 'x' });
    assert.equal(gitea.tokenUrl, 'https://gitea.com/login/oauth/access_token');
    assert.equal(gitea.validateUrl, 'https://gitea.com/login/oauth/userinfo');

    const azure = only({ TYPE: 'azure-devops', CLIENT_ID: 'x', CLIENT_SECRET: 'y' });
    assert.equal(azure.tokenUrl, 'https://app.vssps.visualstudio.com/oauth2/token');
    assert.deepEqual(azure.scopes, ['vso.code_write']);
    const entra = only({
      TYPE: 'azure-devops-entra',
      CLIENT_ID: 'x',
      CLIENT_SECRET: 'y',
      AUTH_URL: 'https://login.microsoftonline.com/tenant-1/oauth2/authorize',
    });
    assert.equal(entra.tokenUrl, 'https://login.microsoftonline.com/tenant-1/oauth2/token');
    const jfrog = only({ TYPE: 'jfrog', CLIENT_ID: 'cid', CLIENT_SECRET: 'y', AUTH_URL: 'https://jf.example.com/ui/authorization' });
    assert.equal(jfrog.tokenUrl, 'https://jf.example.com/access/api/v1/integrations/cid/token');
    assert.equal(regexText(jfrog), '');
    const slack = only({ TYPE: 'slack', CLIENT_ID: 'x', CLIENT_SECRET: 'y' });
    assert.deepEqual(slack.extraTokenKeys, ['authed_user']);
    assert.equal(slack.revokeUrl, 'https://slack.com/api/auth.revoke');

    const generic = only({
      TYPE: 'forge',
      CLIENT_ID: 'x',
      AUTH_URL: 'https://forge.example.com/auth',
      TOKEN_URL: 'https://forge.example.com/token',
    });
    assert.deepEqual(
      [generic.id, generic.displayName, generic.displayIcon, regexText(generic), generic.validateUrl],
      ['forge', 'forge', '/emojis/1f511.png', '', ''],
    );
    assert.deepEqual(generic.codeChallengeMethodsSupported, ['S256']);
  });

  it('refuses a bad provider at start, naming the setting', () => {
    refused(() => fromEnv({ TYPE: 'github' }), /^COVE_EXTERNAL_AUTH_0_CLIENT_ID is required/);
    refused(() => fromEnv({ CLIENT_ID: 'x' }), /^COVE_EXTERNAL_AUTH_0_TYPE is required/);
    refused(() => fromEnv({ TYPE: 'slack', CLIENT_ID: 'x' }), /^COVE_EXTERNAL_AUTH_0_CLIENT_SECRET is required/);
    refused(
      () => fromEnv({ TYPE: 'github', CLIENT_ID: 'a' }, { TYPE: 'github', CLIENT_ID: 'b' }),
      /^COVE_EXTERNAL_AUTH_1_TYPE: the external auth provider id "github" is already used by COVE_EXTERNAL_AUTH_0_TYPE.*defaults to the type/,
    );
    refused(
      () => fromEnv({ TYPE: 'github', CLIENT_ID: 'a', REGEX: 'github(' }),
      /^COVE_EXTERNAL_AUTH_0_REGEX: "github\(" is not a valid regular expression/,
    );
    refused(() => fromEnv({ TYPE: 'forge', CLIENT_ID: 'a' }), /^COVE_EXTERNAL_AUTH_0_TOKEN_URL is required .*generic OAuth2/);
    refused(
      () => fromEnv({ TYPE: 'forge', CLIENT_ID: 'a', TOKEN_URL: 'https://f.example.com/t' }),
      /^COVE_EXTERNAL_AUTH_0_AUTH_URL is required/,
    );
    refused(() => fromEnv({ TYPE: 'bitbucket-server', CLIENT_ID: 'a' }), /^COVE_EXTERNAL_AUTH_0_AUTH_URL is required/);
    refused(
      () => fromEnv({ TYPE: 'gitlab', CLIENT_ID: 'a', DEVICE_FLOW: 'true' }),
      /^COVE_EXTERNAL_AUTH_0_DEVICE_CODE_URL is required when COVE_EXTERNAL_AUTH_0_DEVICE_FLOW/,
    );
    refused(
      () => fromEnv({ TYPE: 'github', CLIENT_ID: 'a', DEVICE_FLOW: 'yes' }),
      /^COVE_EXTERNAL_AUTH_0_DEVICE_FLOW: "yes" is not a boolean/,
    );
    refused(() => fromEnv({ TYPE: 'github', CLIENT_ID: 'a', ID: 'has space' }), /^COVE_EXTERNAL_AUTH_0_ID: the id "has space"/);
    refused(
      () => fromEnv({ TYPE: 'github', CLIENT_ID: 'a', VALIDATE_URL: 'ftp://x' }),
      /^COVE_EXTERNAL_AUTH_0_VALIDATE_URL: "ftp:\/\/x" is not an http/,
    );
    refused(
      () => readExternalAuthProviders({ env: { COVE_EXTERNAL_AUTH_1_TYPE: 'github', COVE_EXTERNAL_AUTH_1_CLIENT_ID: 'a' } }),
      /provider number 0 is missing/,
    );
    refused(
      () => readExternalAuthProviders({ yaml: { externalAuthProviders: [{ type: 'github' }] } }),
      /^config file: externalAuthProviders\[0\]\.client_id is required/,
    );
    refused(() => readExternalAuthProviders({ yaml: { externalAuthProviders: { type: 'github' } } }), /must be a list/);
    // Through the settings the daemon starts with, too.
    refused(() => resolveOptions({ env: { COVE_EXTERNAL_AUTH_0_TYPE: 'github' } }), /CLIENT_ID is required/);
    assert.deepEqual(resolveOptions({ env: {} }).values.externalAuthProviders, []);
  });
});

describe('finding the provider of a git remote', () => {
  const providers = fromEnv(
    { TYPE: 'github', CLIENT_ID: 'a' },
    { TYPE: 'gitlab', CLIENT_ID: 'b', AUTH_URL: 'https://git.example.com/oauth/authorize' },
    { TYPE: 'forge', ID: 'by-id-only', CLIENT_ID: 'c', AUTH_URL: 'https://f.example.com/a', TOKEN_URL: 'https://f.example.com/t' },
    {
      TYPE: 'forge',
      ID: 'insensitive',
      CLIENT_ID: 'c',
      AUTH_URL: 'https://f.example.com/a',
      TOKEN_URL: 'https://f.example.com/t',
      REGEX: '(?i)^https://CODE\\.example\\.com/',
    },
  );
  const idOf = (match: string): string | undefined => matchProvider(providers, { match })?.id;

  it('matches https, http, scp-like and ssh URLs through the regexes', () => {
    assert.equal(idOf('https://github.com/coder/coder.git'), 'github');
    assert.equal(idOf('https://github.com'), 'github');
    assert.equal(idOf('http://github.com/a/b'), 'github');
    assert.equal(idOf('git@github.com:coder/coder.git'), 'github');
    assert.equal(idOf('ssh://git@github.com/coder/coder.git'), 'github');
    assert.equal(idOf('https://user@github.com/coder/coder.git'), 'github');
    assert.equal(idOf('git@git.example.com:group/project.git'), 'gitlab');
    assert.equal(idOf('ssh://git@git.example.com:2222/group/project.git'), 'gitlab');
    assert.equal(idOf('https://code.example.com/x'), 'insensitive');
    assert.equal(idOf('https://github.com.evil.example/x'), undefined);
    assert.equal(idOf('https://f.example.com/repo.git'), undefined);
    assert.equal(idOf(''), undefined);
  });

  it('finds a provider by id, regex or not', () => {
    assert.equal(matchProvider(providers, { id: 'by-id-only' })?.id, 'by-id-only');
    assert.equal(matchProvider(providers, { id: 'nope' }), undefined);
  });

  it('gives the https form of SSH remotes', () => {
    assert.deepEqual(remoteUrlForms('git@github.com:a/b.git'), ['git@github.com:a/b.git', 'https://github.com/a/b.git']);
    assert.deepEqual(remoteUrlForms('ssh://git@h.example:22/a/b'), ['ssh://git@h.example:22/a/b', 'https://h.example/a/b']);
    assert.deepEqual(remoteUrlForms('https://github.com/a'), ['https://github.com/a']);
  });
});

describe('git credentials of a token', () => {
  it('answers the username and password each provider’s git server expects', () => {
    assert.deepEqual(gitCredentials({ type: 'github' }, 'tok'), { username: 'tok', password: '' });
    assert.deepEqual(gitCredentials({ type: 'gitlab' }, 'tok'), { username: 'oauth2', password: 'tok' });
    assert.deepEqual(gitCredentials({ type: 'bitbucket-cloud' }, 'tok'), { username: 'x-token-auth', password: 'tok' });
    assert.deepEqual(gitCredentials({ type: 'bitbucket-server' }, 'tok'), { username: 'x-token-auth', password: 'tok' });
    assert.deepEqual(gitCredentials({ type: 'forge' }, 'tok'), { username: 'tok', password: '' });
  });
});
