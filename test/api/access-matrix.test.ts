import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import {
  buildWorld,
  everySubject,
  memberAgent,
  ROLE_SUBJECTS,
  send,
  SUBJECTS,
  TEAM_SUBJECTS,
  type Call,
  type Expectation,
  type RoleSubject,
  type Subject,
  type TeamSubject,
  type World,
} from '../helpers/access-matrix-world.js';
import { TEST_DIALECTS } from '../helpers/databases.js';
import { STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/**
 * For every route the daemon serves, who may call it and what each caller gets. A route without
 * an entry here fails the test, so new routes arrive with their access rules written down.
 * 404 where a caller may not see the row, 403 where they see it but may not change it.
 *
 * The callers (test/helpers/access-matrix-world) are role holders and three plain members whose
 * reach comes from groups and ACLs: `groupMember` (in the one group the restricted template is
 * shared with), `sharedUse` and `sharedAdmin` (the member's workspaces are shared with them as
 * `use` and `admin`). Workspace and template routes write all three out; elsewhere they get what
 * `otherMember` gets unless an entry says otherwise.
 */

/** What a dashboard page answers: the page, or (no dist/web built in this checkout) the page saying so. */
const DASHBOARD_PAGE_STATUS = existsSync(fileURLToPath(new URL('../../dist/web/index.html', import.meta.url))) ? 200 : 503;

interface Entry {
  readonly call: (world: World, subject: Subject) => Call | Promise<Call>;
  readonly expect: Expectation;
  /**
   * For template routes: what each caller gets when the same call is made on the restricted
   * template (`world.template` is then that template).
   */
  readonly restricted?: Expectation;
  /** Further calls of the same route that answer differently (another body, another row), each named. */
  readonly more?: readonly { readonly name: string; readonly call: Entry['call']; readonly expect: Expectation }[];
}

/** Every caller gets `status` (the team subjects through `otherMember`). */
function everyone(status: number): Expectation {
  return Object.fromEntries(ROLE_SUBJECTS.map((s) => [s, status])) as Record<RoleSubject, number>;
}

/** Anonymous callers get 401; everyone signed in gets `status` unless listed in `except`. */
function signedIn(status: number, except: Partial<Record<Subject, number>> = {}): Expectation {
  return { ...everyone(status), anonymous: 401, ...except };
}

/** Only the listed subjects get `allowed`; other signed-in callers get `denied`. */
function only(allowed: number, subjects: readonly Subject[], denied: number): Expectation {
  const base = signedIn(denied);
  return { ...base, ...Object.fromEntries(subjects.map((s) => [s, allowed])) };
}

/** The team subjects' statuses, for an entry to spell out. */
function team(groupMember: number, sharedUse: number, sharedAdmin: number): Record<TeamSubject, number> {
  return { groupMember, sharedUse, sharedAdmin };
}

const api = (path: string) => `/api/v2${path}`;

/** A report range the test daemon's clock (from 2026-01-05T10:00Z on) never moves before. */
const INSIGHTS_RANGE = 'start_time=2026-01-01T00:00:00Z&end_time=2026-01-05T00:00:00Z';

/**
 * Those who may use the open template: every member of its organization (through the Everyone
 * group), so the team subjects too; site roles without a membership are not here.
 */
function templateUsers(status: number, except: Partial<Record<Subject, number>> = {}): Expectation {
  return signedIn(status, { ...team(status, status, status), ...except });
}

/**
 * Those who may change templates: owners, organization admins and template admins; the rest, the
 * team subjects among them, can see the open template and are refused.
 */
function templateWriters(status: number): Expectation {
  return signedIn(403, { owner: status, orgAdmin: status, templateAdmin: status, ...team(403, 403, 403) });
}

/**
 * The same call on the restricted template: the site and organization roles that read every
 * template get what they get on the open one; the group member gets what a plain member gets on the
 * open one (its group holds `use`, as the Everyone group does there); every other member,
 * the workspace sharers and the user admin included, may not see it (404).
 */
function restrictedAs(open: Expectation, except: Partial<Record<Subject, number>> = {}): Expectation {
  return { ...open, groupMember: open.member, member: 404, otherMember: 404, userAdmin: 404, sharedUse: 404, sharedAdmin: 404, ...except };
}

/**
 * Creating a workspace from the restricted template: a template the caller may not see is a bad
 * `template_id` (400, as the reference answers); the auditor reads every template but has no `use`
 * on this one (403); the group member's group has it.
 */
const RESTRICTED_CREATE: Expectation = restrictedAs(templateUsers(200), {
  ...team(200, 400, 400),
  member: 400,
  otherMember: 400,
  userAdmin: 400,
  auditor: 403,
});

/** Those who may read the owner's workspaces (and so the owner's dry runs); others cannot see them. */
function workspaceReaders(status: number): Expectation {
  return signedIn(404, { owner: status, orgAdmin: status, templateAdmin: status, ...team(404, 404, 404) });
}

/**
 * Those who may read the member's workspaces: the member, organization admins, owners, template
 * admins and those they are shared with (either role); the group member has no share.
 */
function memberWorkspaceReaders(status: number): Expectation {
  return signedIn(404, { member: status, orgAdmin: status, owner: status, templateAdmin: status, ...team(404, status, status) });
}

/**
 * Those who may change the member's workspaces: readers but template admins (who only read) and
 * `use` sharers (who read, connect, start and stop): both see it and are refused.
 */
function memberWorkspaceUpdaters(status: number): Expectation {
  return { ...memberWorkspaceReaders(status), templateAdmin: 403, sharedUse: 403 };
}

/**
 * Those who may reach into the member's workspace (terminals, SSH, streams): its owner, site
 * owners and those it is shared with, `use` being for exactly that. Organization admins and
 * template admins may read it but not exec in it (403).
 */
function agentConnectors(status: number): Expectation {
  return { ...memberWorkspaceReaders(403), member: status, owner: status, sharedUse: status, sharedAdmin: status };
}

/** Those who may read templates across organizations (the examples page). */
function templateReaders(status: number): Expectation {
  return signedIn(404, { owner: status, orgAdmin: status, templateAdmin: status, auditor: status, ...team(404, 404, 404) });
}

const MATRIX: Readonly<Record<string, Entry>> = {
  'GET /api/v2': { call: () => ({ path: api('') }), expect: everyone(200) },
  'GET /healthz': { call: () => ({ path: '/healthz' }), expect: everyone(200) },
  // Public like the reference's binaries; only known release names are served (test/e2e/single-file-binaries).
  'GET /bin/:file': { call: () => ({ path: '/bin/cove-windows-amd64.exe' }), expect: everyone(404) },
  'GET /api/v2/buildinfo': { call: () => ({ path: api('/buildinfo') }), expect: everyone(200) },
  'GET /api/v2/updatecheck': { call: () => ({ path: api('/updatecheck') }), expect: everyone(200) },
  'GET /api/v2/users/first': { call: () => ({ path: api('/users/first') }), expect: everyone(200) },
  // Sign-in pages ask before anyone is signed in.
  'GET /api/v2/users/authmethods': { call: () => ({ path: api('/users/authmethods') }), expect: everyone(200) },
  'POST /api/v2/users/first': {
    call: () => ({ path: api('/users/first'), body: { email: 'late@example.com', username: 'late', password: STRONG_PASSWORD } }),
    expect: everyone(409),
  },
  'POST /api/v2/users/otp/request': {
    call: () => ({ path: api('/users/otp/request'), body: { email: 'nobody@example.com' } }),
    expect: everyone(204),
  },
  'POST /api/v2/users/otp/change-password': {
    // An account per caller: from the sixth wrong passcode for one account on, attempts wait (test/api/sign-in-throttle).
    call: (_world, subject) => ({
      path: api('/users/otp/change-password'),
      body: { email: `${subject}-guess@example.com`, one_time_passcode: 'guess', password: 'A-Brand-New-Passphrase-4' },
    }),
    expect: everyone(400),
  },
  'POST /api/v2/users/login': {
    call: () => ({ path: api('/users/login'), body: { email: 'member@example.com', password: STRONG_PASSWORD } }),
    expect: everyone(201),
  },
  // The sign-in callbacks are unauthenticated by nature: the browser arrives from the provider, and
  // the single-use state bound to it by a cookie is what is checked (test/api/oidc-sign-in and
  // github-sign-in). No provider is configured here, which every caller is told.
  'GET /api/v2/users/oidc/callback': {
    call: () => ({ path: api('/users/oidc/callback'), accept: 'application/json' }),
    expect: everyone(404),
  },
  'GET /api/v2/users/oauth2/github/callback': {
    call: () => ({ path: api('/users/oauth2/github/callback'), accept: 'application/json' }),
    expect: everyone(404),
  },
  // A page for browsers: signed out it offers the ways to sign in, signed in it offers a CLI token.
  'GET /cli-auth': { call: () => ({ path: '/cli-auth', html: true }), expect: everyone(200) },
  // Creates a CLI session token for whoever is signed in (test/api/cli-auth).
  'POST /cli-auth': { call: () => ({ path: '/cli-auth', html: true }), expect: signedIn(200) },
  // The web dashboard's page and files are public: what they show comes from the API, which checks
  // (test/api/web-dashboard). Its page says "not built" with a 503 where dist/web is missing.
  ...Object.fromEntries(
    (
      [
        ['/', '/'],
        ['/login', '/login'],
        ['/setup', '/setup'],
        ['/workspaces', '/workspaces'],
        ['/workspaces/*', '/workspaces/new'],
        ['/templates', '/templates'],
        ['/templates/*', '/templates/docker'],
        ['/deployment', '/deployment'],
        ['/deployment/*', '/deployment/users'],
        ['/groups', '/groups'],
        ['/groups/*', '/groups/cove/devs'],
        ['/@*', '/@admin/dev.main/terminal'],
        ['/external-auth/*', '/external-auth/github'],
        ['/settings/*', '/settings/external-auth'],
        ['/audit', '/audit'],
        ['/connectionlog', '/connectionlog'],
        ['/organizations', '/organizations'],
        ['/organizations/*', '/organizations/cove/members'],
      ] as const
    ).map(([route, path]) => [
      `GET ${route}`,
      { call: () => ({ path, accept: 'text/html', html: true }), expect: everyone(DASHBOARD_PAGE_STATUS) },
    ]),
  ),
  'GET /assets/*': { call: () => ({ path: '/assets/none-00000000.js' }), expect: everyone(404) },
  'GET /icon/:file': { call: () => ({ path: '/icon/terminal.svg', html: true }), expect: everyone(200) },
  // A redirect to the dashboard's icon, which fetch follows.
  'GET /favicon.ico': { call: () => ({ path: '/favicon.ico', html: true }), expect: everyone(200) },
  'POST /api/v2/users/logout': {
    call: async (world, subject) => ({ path: api('/users/logout'), token: await world.freshSession(subject) }),
    expect: signedIn(200),
  },
  'POST /api/v2/csp/reports': {
    call: () => ({ path: api('/csp/reports'), body: { 'csp-report': { 'document-uri': 'http://x' } } }),
    expect: signedIn(200),
  },
  'GET /api/v2/deployment/config': { call: () => ({ path: api('/deployment/config') }), expect: only(200, ['owner', 'auditor'], 403) },
  'GET /api/v2/deployment/stats': { call: () => ({ path: api('/deployment/stats') }), expect: only(200, ['owner', 'auditor'], 403) },
  'GET /api/v2/deployment/ssh': { call: () => ({ path: api('/deployment/ssh') }), expect: signedIn(200) },
  'GET /api/v2/experiments': { call: () => ({ path: api('/experiments') }), expect: signedIn(200) },
  'GET /api/v2/experiments/available': { call: () => ({ path: api('/experiments/available') }), expect: signedIn(200) },
  'POST /api/v2/users/validate-password': {
    call: () => ({ path: api('/users/validate-password'), body: { password: 'hunter2' } }),
    expect: signedIn(200),
  },
  'POST /api/v2/users/:user/convert-login': {
    call: () => ({ path: api('/users/me/convert-login'), body: { to_type: 'oidc', password: STRONG_PASSWORD } }),
    // No OIDC provider is configured, which every signed-in caller is told.
    expect: signedIn(400),
  },
  'POST /api/v2/users': {
    call: (world) => {
      const username = world.unique('created');
      return {
        path: api('/users'),
        body: { email: `${username}@example.com`, username, password: STRONG_PASSWORD, organization_ids: [world.defaultOrgId] },
      };
    },
    expect: only(201, ['owner', 'userAdmin'], 403),
  },
  'GET /api/v2/users': { call: () => ({ path: api('/users') }), expect: signedIn(200) },
  'GET /api/v2/users/:user': {
    call: () => ({ path: api('/users/member') }),
    expect: signedIn(200, { otherMember: 404 }),
  },
  'POST /api/v2/users/:user/keys/tokens': {
    call: (world) => ({ path: api('/users/member/keys/tokens'), body: { token_name: world.unique('token'), lifetime: 0 } }),
    // Those who can see the user but not hold their keys are refused; otherMember cannot see them at all.
    expect: signedIn(403, { member: 201, owner: 201, otherMember: 404 }),
  },
  'POST /api/v2/users/:user/keys': {
    call: () => ({ path: api('/users/member/keys') }),
    // As for tokens: those who can see the user but not hold their keys are refused.
    expect: signedIn(403, { member: 201, owner: 201, otherMember: 404 }),
  },
  'GET /api/v2/users/:user/login-type': {
    call: () => ({ path: api('/users/member/login-type') }),
    // The user themself and those who may read users' personal details.
    expect: signedIn(403, { member: 200, owner: 200, userAdmin: 200, otherMember: 404 }),
  },
  'GET /api/v2/users/:user/organizations': {
    call: () => ({ path: api('/users/member/organizations') }),
    expect: signedIn(200, { otherMember: 404 }),
  },
  'GET /api/v2/users/:user/keys/tokens': {
    call: () => ({ path: api('/users/member/keys/tokens') }),
    // The list is filtered to the keys the caller may read (none, for the admins without key rights).
    expect: signedIn(200, { otherMember: 404 }),
  },
  'GET /api/v2/users/:user/keys/tokens/tokenconfig': {
    call: () => ({ path: api('/users/member/keys/tokens/tokenconfig') }),
    expect: signedIn(200, { otherMember: 404 }),
  },
  'GET /api/v2/users/:user/keys/tokens/:keyname': {
    call: () => ({ path: api('/users/member/keys/tokens/matrix-token') }),
    expect: only(200, ['member', 'owner'], 404),
  },
  'GET /api/v2/users/:user/keys/:keyid': {
    call: (world) => ({ path: api(`/users/member/keys/${world.memberTokenId}`) }),
    expect: only(200, ['member', 'owner'], 404),
  },
  'DELETE /api/v2/users/:user/keys/:keyid': {
    call: async (world) => {
      const user = await world.freshUser();
      const { key } = await world.owner.createToken({ token_name: world.unique('doomed') }, user.id);
      return { path: api(`/users/${user.id}/keys/${key.split('-')[0]}`) };
    },
    expect: only(204, ['owner'], 404),
  },
  'POST /api/v2/files': {
    call: (world) => ({ path: api('/files'), raw: { contentType: 'application/x-tar', body: world.tar } }),
    expect: signedIn(201),
  },
  'GET /api/v2/files/:fileID': {
    call: (world) => ({ path: api(`/files/${world.memberFileId}`) }),
    expect: only(200, ['member', 'owner', 'templateAdmin'], 404),
  },
  // Templates, versions and provisioners
  'POST /api/v2/organizations/:organization/templateversions': {
    call: (world) => ({ path: api(`/organizations/${world.defaultOrgId}/templateversions`), body: { example_id: 'local-shell' } }),
    expect: signedIn(403, { owner: 201, orgAdmin: 201, templateAdmin: 201, ...team(403, 403, 403) }),
  },
  'GET /api/v2/templateversions/:templateversion': {
    call: (world) => ({ path: api(`/templateversions/${world.template.v1}`) }),
    expect: templateUsers(200),
    restricted: restrictedAs(templateUsers(200)),
  },
  'PATCH /api/v2/templateversions/:templateversion': {
    call: (world) => ({ path: api(`/templateversions/${world.template.v1}`), body: { message: world.unique('message') } }),
    expect: templateWriters(200),
    restricted: restrictedAs(templateWriters(200)),
  },
  'PATCH /api/v2/templateversions/:templateversion/cancel': {
    call: (world) => ({ path: api(`/templateversions/${world.template.v1}/cancel`) }),
    // The import finished long ago: writers are told so, everyone else may not cancel at all.
    expect: templateWriters(400),
    restricted: restrictedAs(templateWriters(400)),
  },
  'POST /api/v2/templateversions/:templateversion/archive': {
    call: async (world) => ({ path: api(`/templateversions/${await world.freshVersion(world.template.id)}/archive`) }),
    expect: templateWriters(200),
    restricted: restrictedAs(templateWriters(200)),
  },
  'POST /api/v2/templateversions/:templateversion/unarchive': {
    call: async (world) => {
      const id = await world.freshVersion(world.template.id);
      await world.owner.archiveTemplateVersion(id);
      return { path: api(`/templateversions/${id}/unarchive`) };
    },
    expect: templateWriters(200),
    restricted: restrictedAs(templateWriters(200)),
  },
  'POST /api/v2/templateversions/:templateversion/dry-run': {
    call: (world) => ({ path: api(`/templateversions/${world.template.v1}/dry-run`), body: { workspace_name: 'plan' } }),
    // Everyone here may create workspaces of their own in the default organization.
    expect: templateUsers(201),
    restricted: restrictedAs(templateUsers(201)),
  },
  'GET /api/v2/templateversions/:templateversion/dry-run/:jobID': {
    call: (world) => ({ path: api(`/templateversions/${world.template.v1}/dry-run/${world.ownerDryRun}`) }),
    expect: workspaceReaders(200),
  },
  'GET /api/v2/templateversions/:templateversion/dry-run/:jobID/resources': {
    call: (world) => ({ path: api(`/templateversions/${world.template.v1}/dry-run/${world.ownerDryRun}/resources`) }),
    expect: workspaceReaders(200),
  },
  'GET /api/v2/templateversions/:templateversion/dry-run/:jobID/logs': {
    call: (world) => ({ path: api(`/templateversions/${world.template.v1}/dry-run/${world.ownerDryRun}/logs`) }),
    expect: workspaceReaders(200),
  },
  'PATCH /api/v2/templateversions/:templateversion/dry-run/:jobID/cancel': {
    call: (world) => ({ path: api(`/templateversions/${world.template.v1}/dry-run/${world.ownerDryRun}/cancel`) }),
    // The plan finished: those who may cancel it are told so; template admins only read workspaces.
    expect: { ...workspaceReaders(400), templateAdmin: 403 },
  },
  'POST /api/v2/templateversions/:templateversion/dynamic-parameters/evaluate': {
    call: (world) => ({ path: api(`/templateversions/${world.template.v1}/dynamic-parameters/evaluate`), body: { id: 1, inputs: {} } }),
    expect: templateUsers(200),
    restricted: restrictedAs(templateUsers(200)),
  },
  'GET /api/v2/templateversions/:templateversion/dynamic-parameters': {
    call: (world) => ({ path: api(`/templateversions/${world.template.v1}/dynamic-parameters`) }),
    // Not a WebSocket upgrade.
    expect: templateUsers(400),
    restricted: restrictedAs(templateUsers(400)),
  },
  'GET /api/v2/templateversions/:templateversion/logs': {
    call: (world) => ({ path: api(`/templateversions/${world.template.v1}/logs`) }),
    expect: templateUsers(200),
    restricted: restrictedAs(templateUsers(200)),
  },
  'GET /api/v2/templateversions/:templateversion/resources': {
    call: (world) => ({ path: api(`/templateversions/${world.template.v1}/resources`) }),
    expect: templateUsers(200),
    restricted: restrictedAs(templateUsers(200)),
  },
  'GET /api/v2/templateversions/:templateversion/rich-parameters': {
    call: (world) => ({ path: api(`/templateversions/${world.template.v1}/rich-parameters`) }),
    expect: templateUsers(200),
    restricted: restrictedAs(templateUsers(200)),
  },
  'GET /api/v2/templateversions/:templateversion/variables': {
    call: (world) => ({ path: api(`/templateversions/${world.template.v1}/variables`) }),
    expect: templateUsers(200),
    restricted: restrictedAs(templateUsers(200)),
  },
  'GET /api/v2/templateversions/:templateversion/presets': {
    call: (world) => ({ path: api(`/templateversions/${world.template.v1}/presets`) }),
    expect: templateUsers(200),
    restricted: restrictedAs(templateUsers(200)),
  },
  'GET /api/v2/templateversions/:templateversion/external-auth': {
    call: (world) => ({ path: api(`/templateversions/${world.template.v1}/external-auth`) }),
    expect: templateUsers(200),
    restricted: restrictedAs(templateUsers(200)),
  },
  'GET /api/v2/templateversions/:templateversion/parameters': {
    call: (world) => ({ path: api(`/templateversions/${world.template.v1}/parameters`) }),
    expect: templateUsers(200),
    restricted: restrictedAs(templateUsers(200)),
  },
  'GET /api/v2/organizations/:organization/provisionerdaemons/serve': {
    call: (world) => ({ path: api(`/organizations/${world.defaultOrgId}/provisionerdaemons/serve?id=${world.defaultOrgId}`) }),
    // Not a WebSocket upgrade: every caller who got past authentication is told what the endpoint is for.
    expect: signedIn(400),
  },
  'POST /api/v2/organizations/:organization/provisionerkeys': {
    call: (world) => ({ path: api(`/organizations/${world.defaultOrgId}/provisionerkeys`), body: { name: world.unique('key') } }),
    expect: templateWriters(201),
  },
  'GET /api/v2/organizations/:organization/provisionerkeys': {
    call: (world) => ({ path: api(`/organizations/${world.defaultOrgId}/provisionerkeys`) }),
    expect: signedIn(200),
  },
  'DELETE /api/v2/organizations/:organization/provisionerkeys/:keyName': {
    call: async (world) => {
      const name = world.unique('doomed-key');
      await world.owner.createProvisionerKey(world.defaultOrgId, { name });
      return { path: api(`/organizations/${world.defaultOrgId}/provisionerkeys/${name}`) };
    },
    expect: templateWriters(204),
  },
  'GET /api/v2/organizations/:organization/provisionerdaemons': {
    call: (world) => ({ path: api(`/organizations/${world.defaultOrgId}/provisionerdaemons`) }),
    expect: signedIn(200),
  },
  'GET /api/v2/organizations/:organization/provisionerjobs': {
    call: (world) => ({ path: api(`/organizations/${world.defaultOrgId}/provisionerjobs`) }),
    expect: signedIn(404, { owner: 200, orgAdmin: 200, templateAdmin: 200 }),
  },
  'GET /api/v2/organizations/:organization/provisionerjobs/:job': {
    call: (world) => ({ path: api(`/organizations/${world.defaultOrgId}/provisionerjobs/${world.template.v1Job}`) }),
    expect: signedIn(404, { owner: 200, orgAdmin: 200, templateAdmin: 200 }),
  },
  'GET /api/v2/templates': { call: () => ({ path: api('/templates') }), expect: templateUsers(200) },
  'GET /api/v2/organizations/:organization/templates': {
    call: (world) => ({ path: api(`/organizations/${world.defaultOrgId}/templates`) }),
    expect: templateUsers(200),
  },
  'POST /api/v2/organizations/:organization/templates': {
    call: async (world) => ({
      path: api(`/organizations/${world.defaultOrgId}/templates`),
      body: { name: world.unique('made'), template_version_id: await world.freshVersion() },
    }),
    expect: templateWriters(200),
  },
  'GET /api/v2/templates/examples': { call: () => ({ path: api('/templates/examples') }), expect: templateReaders(200) },
  'GET /api/v2/organizations/:organization/templates/examples': {
    call: (world) => ({ path: api(`/organizations/${world.defaultOrgId}/templates/examples`) }),
    expect: templateReaders(200),
  },
  'GET /api/v2/organizations/:organization/templates/:templatename': {
    call: (world) => ({ path: api(`/organizations/${world.defaultOrgId}/templates/${world.template.name}`) }),
    expect: templateUsers(200),
    restricted: restrictedAs(templateUsers(200)),
  },
  'GET /api/v2/organizations/:organization/templates/:templatename/versions/:templateversionname': {
    call: (world) => ({ path: api(`/organizations/${world.defaultOrgId}/templates/${world.template.name}/versions/v2`) }),
    expect: templateUsers(200),
    restricted: restrictedAs(templateUsers(200)),
  },
  'GET /api/v2/organizations/:organization/templates/:templatename/versions/:templateversionname/previous': {
    call: (world) => ({ path: api(`/organizations/${world.defaultOrgId}/templates/${world.template.name}/versions/v2/previous`) }),
    expect: templateUsers(200),
    restricted: restrictedAs(templateUsers(200)),
  },
  'GET /api/v2/templates/:template': {
    call: (world) => ({ path: api(`/templates/${world.template.id}`) }),
    expect: templateUsers(200),
    restricted: restrictedAs(templateUsers(200)),
  },
  'PATCH /api/v2/templates/:template': {
    call: (world) => ({ path: api(`/templates/${world.template.id}`), body: { description: world.unique('about') } }),
    expect: templateWriters(200),
    restricted: restrictedAs(templateWriters(200)),
  },
  'DELETE /api/v2/templates/:template': {
    call: async (world) => ({ path: api(`/templates/${await world.freshTemplate()}`) }),
    expect: templateWriters(200),
    restricted: restrictedAs(templateWriters(200)),
  },
  'GET /api/v2/templates/:template/daus': {
    call: (world) => ({ path: api(`/templates/${world.template.id}/daus?tz_offset=0`) }),
    expect: templateUsers(200),
    restricted: restrictedAs(templateUsers(200)),
  },
  'GET /api/v2/templates/:template/versions': {
    call: (world) => ({ path: api(`/templates/${world.template.id}/versions`) }),
    expect: templateUsers(200),
    restricted: restrictedAs(templateUsers(200)),
  },
  'PATCH /api/v2/templates/:template/versions': {
    call: (world) => ({ path: api(`/templates/${world.template.id}/versions`), body: { id: world.template.v1 } }),
    expect: templateWriters(200),
    restricted: restrictedAs(templateWriters(200)),
  },
  'POST /api/v2/templates/:template/versions/archive': {
    call: (world) => ({ path: api(`/templates/${world.template.id}/versions/archive`), body: { all: false } }),
    expect: templateWriters(200),
    restricted: restrictedAs(templateWriters(200)),
  },
  'GET /api/v2/templates/:template/versions/:templateversionname': {
    call: (world) => ({ path: api(`/templates/${world.template.id}/versions/v1`) }),
    expect: templateUsers(200),
    restricted: restrictedAs(templateUsers(200)),
  },
  'GET /api/v2/templates/:template/acl': {
    call: (world) => ({ path: api(`/templates/${world.template.id}/acl`) }),
    // As whom one could add: those who may change the template; the rest are told it is not there.
    expect: signedIn(404, { owner: 200, orgAdmin: 200, templateAdmin: 200, ...team(404, 404, 404) }),
    restricted: restrictedAs(signedIn(404, { owner: 200, orgAdmin: 200, templateAdmin: 200, ...team(404, 404, 404) })),
  },
  'PATCH /api/v2/templates/:template/acl': {
    // Sets the groups' roles to what they are, so the other calls see the same template.
    call: (world) => ({ path: api(`/templates/${world.template.id}/acl`), body: { group_perms: world.template.groupPerms } }),
    expect: templateWriters(200),
    restricted: restrictedAs(templateWriters(200)),
  },
  'GET /api/v2/templates/:template/acl/available': {
    call: (world) => ({ path: api(`/templates/${world.template.id}/acl/available`) }),
    // Those who may change the template; the rest, the group member with its `use` too, are told it is not there.
    expect: signedIn(404, { owner: 200, orgAdmin: 200, templateAdmin: 200, ...team(404, 404, 404) }),
    restricted: restrictedAs(signedIn(404, { owner: 200, orgAdmin: 200, templateAdmin: 200, ...team(404, 404, 404) })),
  },
  // Workspaces
  'POST /api/v2/users/:user/workspaces': {
    call: (world) => ({ path: api('/users/me/workspaces'), body: { name: world.unique('ws'), template_id: world.template.id } }),
    expect: templateUsers(200),
    restricted: RESTRICTED_CREATE,
  },
  'POST /api/v2/organizations/:organization/members/:user/workspaces': {
    call: (world) => ({
      path: api(`/organizations/${world.defaultOrgId}/members/me/workspaces`),
      body: { name: world.unique('ws'), template_id: world.template.id },
    }),
    expect: templateUsers(200),
    restricted: RESTRICTED_CREATE,
  },
  'GET /api/v2/workspaces': { call: () => ({ path: api('/workspaces') }), expect: signedIn(200, team(200, 200, 200)) },
  'GET /api/v2/workspaces/:workspace': {
    call: (world) => ({ path: api(`/workspaces/${world.memberWorkspace.id}`) }),
    expect: memberWorkspaceReaders(200),
  },
  'GET /api/v2/users/:user/workspace/:workspacename': {
    call: () => ({ path: api('/users/member/workspace/member-ws') }),
    // Only the workspace is authorized, not its owner's user row: sharers read it by the owner's name.
    expect: memberWorkspaceReaders(200),
  },
  'GET /api/v2/workspace-quota/:user': {
    call: () => ({ path: api('/workspace-quota/member') }),
    // A share lets its users into one workspace, not into what its owner spends on all of them.
    expect: { ...memberWorkspaceReaders(200), sharedUse: 404, sharedAdmin: 404 },
  },
  'GET /api/v2/organizations/:organization/members/:user/workspace-quota': {
    call: (world) => ({ path: api(`/organizations/${world.defaultOrgId}/members/member/workspace-quota`) }),
    expect: { ...memberWorkspaceReaders(200), sharedUse: 404, sharedAdmin: 404 },
  },
  'PATCH /api/v2/workspaces/:workspace': {
    call: (world) => ({ path: api(`/workspaces/${world.memberWorkspace.id}`), body: { name: 'member-ws' } }),
    // Renaming to the same name is a no-op for those who may rename; template admins and `use` sharers may not.
    expect: memberWorkspaceUpdaters(204),
  },
  'POST /api/v2/workspaces/:workspace/builds': {
    call: async (world) => ({ path: api(`/workspaces/${await world.freshMemberWorkspace()}/builds`), body: { transition: 'stop' } }),
    // Stopping is `use`: both sharers may.
    expect: { ...memberWorkspaceReaders(201), templateAdmin: 403, ...team(404, 201, 201) },
    more: [
      {
        // Deleting is `admin`'s, not `use`'s.
        name: 'delete',
        call: async (world) => ({ path: api(`/workspaces/${await world.freshMemberWorkspace()}/builds`), body: { transition: 'delete' } }),
        expect: memberWorkspaceUpdaters(201),
      },
    ],
  },
  'GET /api/v2/workspaces/:workspace/builds': {
    call: (world) => ({ path: api(`/workspaces/${world.memberWorkspace.id}/builds`) }),
    expect: memberWorkspaceReaders(200),
  },
  'GET /api/v2/users/:user/workspace/:workspacename/builds/:buildnumber': {
    call: () => ({ path: api('/users/member/workspace/member-ws/builds/1') }),
    expect: memberWorkspaceReaders(200),
  },
  'GET /api/v2/workspacebuilds/:workspacebuild': {
    call: (world) => ({ path: api(`/workspacebuilds/${world.memberWorkspace.build}`) }),
    expect: memberWorkspaceReaders(200),
  },
  'PATCH /api/v2/workspacebuilds/:workspacebuild/cancel': {
    call: (world) => ({ path: api(`/workspacebuilds/${world.memberWorkspace.build}/cancel`) }),
    // The template does not let users cancel builds: only owners may, and this one has finished.
    expect: { ...memberWorkspaceReaders(403), owner: 400, ...team(404, 403, 403) },
  },
  'GET /api/v2/workspacebuilds/:workspacebuild/logs': {
    call: (world) => ({ path: api(`/workspacebuilds/${world.memberWorkspace.build}/logs`) }),
    expect: memberWorkspaceReaders(200),
  },
  'GET /api/v2/workspacebuilds/:workspacebuild/resources': {
    call: (world) => ({ path: api(`/workspacebuilds/${world.memberWorkspace.build}/resources`) }),
    expect: memberWorkspaceReaders(200),
  },
  'GET /api/v2/workspacebuilds/:workspacebuild/parameters': {
    call: (world) => ({ path: api(`/workspacebuilds/${world.memberWorkspace.build}/parameters`) }),
    expect: memberWorkspaceReaders(200),
  },
  'GET /api/v2/workspacebuilds/:workspacebuild/state': {
    call: (world) => ({ path: api(`/workspacebuilds/${world.memberWorkspace.build}/state`) }),
    // Provisioner state may hold infrastructure secrets: template managers only.
    expect: { ...memberWorkspaceReaders(200), member: 404, ...team(404, 404, 404) },
  },
  'PUT /api/v2/workspacebuilds/:workspacebuild/state': {
    call: (world) => ({ path: api(`/workspacebuilds/${world.memberWorkspace.build}/state`), body: { state: '' } }),
    // Replacing the state needs `update` on the template; the member sees the build but may not change it.
    expect: { ...memberWorkspaceReaders(204), member: 403, ...team(404, 403, 403) },
  },
  'PUT /api/v2/workspaces/:workspace/favorite': {
    call: (world) => ({ path: api(`/workspaces/${world.memberWorkspace.id}/favorite`) }),
    // Only the owner of a workspace may favorite it, whoever else can see it.
    expect: { ...memberWorkspaceReaders(403), member: 204, ...team(404, 403, 403) },
  },
  'DELETE /api/v2/workspaces/:workspace/favorite': {
    call: (world) => ({ path: api(`/workspaces/${world.memberWorkspace.id}/favorite`) }),
    expect: { ...memberWorkspaceReaders(403), member: 204, ...team(404, 403, 403) },
  },
  'POST /api/v2/workspaces/:workspace/usage': {
    call: (world) => ({ path: api(`/workspaces/${world.memberWorkspace.id}/usage`), body: {} }),
    // Reporting use needs `update` on the workspace: template admins and `use` sharers see it and are refused.
    expect: memberWorkspaceUpdaters(204),
  },
  'GET /api/v2/workspaces/:workspace/port-share': {
    call: (world) => ({ path: api(`/workspaces/${world.memberWorkspace.id}/port-share`) }),
    expect: memberWorkspaceReaders(200),
  },
  'POST /api/v2/workspaces/:workspace/port-share': {
    call: (world) => ({
      path: api(`/workspaces/${world.memberWorkspace.id}/port-share`),
      body: { agent_name: 'main', port: 8080, share_level: 'authenticated' },
    }),
    // The template allows no sharing beyond the owner: those who may change the workspace are told so.
    expect: memberWorkspaceUpdaters(400),
  },
  'DELETE /api/v2/workspaces/:workspace/port-share': {
    call: (world) => ({ path: api(`/workspaces/${world.memberWorkspace.id}/port-share`), body: { agent_name: 'main', port: 1 } }),
    expect: memberWorkspaceUpdaters(404),
  },
  'GET /api/v2/workspaces/:workspace/watch': {
    call: (world) => ({ path: api(`/workspaces/${world.memberWorkspace.id}/watch`), stream: true }),
    expect: memberWorkspaceReaders(200),
  },
  'GET /api/v2/workspaces/:workspace/watch-ws': {
    call: (world) => ({ path: api(`/workspaces/${world.memberWorkspace.id}/watch-ws`) }),
    // Not a WebSocket upgrade.
    expect: memberWorkspaceReaders(400),
  },
  'GET /api/v2/workspaces/watch-ws': {
    call: (world) => ({ path: api(`/workspaces/watch-ws?ids=${world.memberWorkspace.id}`) }),
    // Not a WebSocket upgrade; each id is read first, so those who may not read it get the 404.
    expect: memberWorkspaceReaders(400),
  },
  'PUT /api/v2/workspaces/:workspace/autostart': {
    call: (world) => ({ path: api(`/workspaces/${world.memberWorkspace.id}/autostart`), body: { schedule: null } }),
    expect: memberWorkspaceUpdaters(204),
  },
  'PUT /api/v2/workspaces/:workspace/ttl': {
    call: (world) => ({ path: api(`/workspaces/${world.memberWorkspace.id}/ttl`), body: { ttl_ms: null } }),
    expect: memberWorkspaceUpdaters(204),
  },
  'PUT /api/v2/workspaces/:workspace/extend': {
    call: (world) => ({ path: api(`/workspaces/${world.memberWorkspace.id}/extend`), body: { deadline: '2099-01-01T00:00:00Z' } }),
    // The workspace has no automatic stop to move.
    expect: memberWorkspaceUpdaters(409),
  },
  'PUT /api/v2/workspaces/:workspace/dormant': {
    call: (world) => ({ path: api(`/workspaces/${world.memberWorkspace.id}/dormant`), body: { dormant: false } }),
    // Already awake: nothing changes.
    expect: memberWorkspaceUpdaters(304),
  },
  'PUT /api/v2/workspaces/:workspace/autoupdates': {
    call: (world) => ({ path: api(`/workspaces/${world.memberWorkspace.id}/autoupdates`), body: { automatic_updates: 'never' } }),
    expect: memberWorkspaceUpdaters(204),
  },
  'GET /api/v2/workspaces/:workspace/resolve-autostart': {
    call: (world) => ({ path: api(`/workspaces/${world.memberWorkspace.id}/resolve-autostart`) }),
    expect: memberWorkspaceReaders(200),
  },
  'GET /api/v2/workspaces/:workspace/timings': {
    call: (world) => ({ path: api(`/workspaces/${world.memberWorkspace.id}/timings`) }),
    expect: memberWorkspaceReaders(200),
  },
  'GET /api/v2/workspacebuilds/:workspacebuild/timings': {
    call: (world) => ({ path: api(`/workspacebuilds/${world.memberWorkspace.build}/timings`) }),
    expect: memberWorkspaceReaders(200),
  },
  'GET /api/v2/organizations': { call: () => ({ path: api('/organizations') }), expect: signedIn(200) },
  'POST /api/v2/organizations': {
    call: (world) => ({ path: api('/organizations'), body: { name: world.unique('org') } }),
    expect: only(201, ['owner'], 403),
  },
  'GET /api/v2/organizations/:organization': {
    call: (world) => ({ path: api(`/organizations/${world.labsOrgId}`) }),
    expect: only(200, ['owner', 'auditor', 'templateAdmin', 'userAdmin'], 404),
  },
  'PATCH /api/v2/organizations/:organization': {
    call: (world) => ({ path: api(`/organizations/${world.defaultOrgId}`), body: { description: world.unique('described') } }),
    expect: signedIn(403, { owner: 200, orgAdmin: 200 }),
  },
  'DELETE /api/v2/organizations/:organization': {
    call: async (world) => ({ path: api(`/organizations/${(await world.freshOrganization()).id}`) }),
    // Site roles that read every organization see it, so they are refused rather than told it is missing.
    expect: signedIn(403, { owner: 200, member: 404, otherMember: 404, orgAdmin: 404 }),
  },
  'GET /api/v2/organizations/:organization/members': {
    call: (world) => ({ path: api(`/organizations/${world.labsOrgId}/members`) }),
    expect: only(200, ['owner', 'auditor', 'templateAdmin', 'userAdmin'], 404),
  },
  'GET /api/v2/organizations/:organization/paginated-members': {
    call: (world) => ({ path: api(`/organizations/${world.labsOrgId}/paginated-members?limit=0`) }),
    expect: only(200, ['owner', 'auditor', 'templateAdmin', 'userAdmin'], 404),
  },
  'POST /api/v2/organizations/:organization/members/:user': {
    call: async (world) => {
      const user = await world.freshUser();
      return { path: api(`/organizations/${world.defaultOrgId}/members/${user.id}`) };
    },
    // Already a member of the default organization: those allowed to add are told so.
    expect: signedIn(403, { owner: 400, orgAdmin: 400, userAdmin: 400 }),
  },
  'DELETE /api/v2/organizations/:organization/members/:user': {
    call: async (world) => {
      const user = await world.freshUser();
      return { path: api(`/organizations/${world.defaultOrgId}/members/${user.id}`) };
    },
    // Plain members see only their own membership.
    expect: signedIn(403, { owner: 204, orgAdmin: 204, userAdmin: 204, member: 404, otherMember: 404 }),
  },
  'GET /api/v2/users/roles': { call: () => ({ path: api('/users/roles') }), expect: signedIn(200) },
  'GET /api/v2/organizations/:organization/members/roles': {
    call: (world) => ({ path: api(`/organizations/${world.defaultOrgId}/members/roles`) }),
    expect: signedIn(200),
  },
  'POST /api/v2/organizations/:organization/members/roles': {
    call: (world) => ({
      path: api(`/organizations/${world.defaultOrgId}/members/roles`),
      body: { name: world.unique('role'), organization_permissions: [{ negate: false, resource_type: 'template', action: 'read' }] },
    }),
    expect: signedIn(403, { owner: 200, orgAdmin: 200 }),
  },
  'PUT /api/v2/organizations/:organization/members/roles': {
    call: (world) => ({
      path: api(`/organizations/${world.defaultOrgId}/members/roles`),
      body: { name: 'matrix-role', organization_permissions: [{ negate: false, resource_type: 'template', action: 'read' }] },
    }),
    expect: signedIn(403, { owner: 200, orgAdmin: 200 }),
  },
  'DELETE /api/v2/organizations/:organization/members/roles/:roleName': {
    call: async (world) => {
      const name = world.unique('doomed-role');
      await world.owner.createCustomRole(world.defaultOrgId, { name, organization_permissions: [] });
      return { path: api(`/organizations/${world.defaultOrgId}/members/roles/${name}`) };
    },
    expect: signedIn(403, { owner: 200, orgAdmin: 200 }),
  },
  'PUT /api/v2/organizations/:organization/members/:user/roles': {
    call: async (world) => {
      const user = await world.freshUser();
      return { path: api(`/organizations/${world.defaultOrgId}/members/${user.id}/roles`), body: { roles: ['organization-auditor'] } };
    },
    // The assignment table lets a user admin grant only organization-member.
    expect: signedIn(403, { owner: 200, orgAdmin: 200, userAdmin: 400, member: 404, otherMember: 404 }),
  },
  'POST /api/v2/authcheck': {
    call: () => ({ path: api('/authcheck'), body: { checks: { read: { action: 'read', object: { resource_type: 'template' } } } } }),
    expect: signedIn(200),
  },
  'PUT /api/v2/users/:user/status/suspend': {
    call: async (world) => ({ path: api(`/users/${(await world.freshUser()).id}/status/suspend`) }),
    // Plain members cannot see other users; the site roles that read users are refused.
    expect: signedIn(403, { owner: 200, userAdmin: 200, member: 404, otherMember: 404 }),
  },
  'PUT /api/v2/users/:user/status/activate': {
    call: async (world) => ({ path: api(`/users/${(await world.freshUser()).id}/status/activate`) }),
    expect: signedIn(403, { owner: 200, userAdmin: 200, member: 404, otherMember: 404 }),
  },
  'PUT /api/v2/users/:user/roles': {
    call: async (world) => ({ path: api(`/users/${(await world.freshUser()).id}/roles`), body: { roles: ['auditor'] } }),
    // The assignment table does not let a user admin grant auditor.
    expect: signedIn(403, { owner: 200, userAdmin: 400, member: 404, otherMember: 404 }),
  },
  'PUT /api/v2/users/:user/profile': {
    call: (world) => ({ path: api('/users/member/profile'), body: { username: 'member', name: world.unique('Name') } }),
    expect: signedIn(403, { member: 200, owner: 200, userAdmin: 200, otherMember: 404 }),
  },
  'PUT /api/v2/users/:user/password': {
    call: async (world) => ({
      path: api(`/users/${(await world.freshUser()).id}/password`),
      body: { password: 'A-Brand-New-Passphrase-4' },
    }),
    expect: signedIn(403, { owner: 204, userAdmin: 204, member: 404, otherMember: 404 }),
  },
  'DELETE /api/v2/users/:user': {
    call: async (world) => ({ path: api(`/users/${(await world.freshUser()).id}`) }),
    expect: signedIn(403, { owner: 200, userAdmin: 200, member: 404, otherMember: 404 }),
  },
  'GET /api/v2/users/:user/gitsshkey': {
    call: () => ({ path: api('/users/member/gitsshkey') }),
    // Reading the key is a personal read: those who may only see the user are told it does not exist.
    expect: signedIn(404, { member: 200, owner: 200, userAdmin: 200 }),
  },
  'PUT /api/v2/users/:user/gitsshkey': {
    call: () => ({ path: api('/users/member/gitsshkey') }),
    expect: signedIn(403, { member: 200, owner: 200, userAdmin: 200, otherMember: 404 }),
  },
  // A user's own links only: no route names another user. This deployment configures no provider,
  // so a provider id names nothing to anyone signed in.
  'GET /api/v2/external-auth': { call: () => ({ path: api('/external-auth') }), expect: signedIn(200) },
  'GET /api/v2/external-auth/:externalauth': { call: () => ({ path: api('/external-auth/github') }), expect: signedIn(404) },
  'DELETE /api/v2/external-auth/:externalauth': { call: () => ({ path: api('/external-auth/github') }), expect: signedIn(404) },
  // The browser's link flow lives outside /api/v2, where the reference's redirect URIs point.
  'GET /external-auth/:externalauth/callback': {
    call: () => ({ path: '/external-auth/github/callback' }),
    expect: signedIn(404),
  },
  'GET /gitauth/:externalauth/callback': {
    call: () => ({ path: '/gitauth/github/callback' }),
    expect: signedIn(404),
  },
  'GET /api/v2/external-auth/:externalauth/device': {
    call: () => ({ path: api('/external-auth/github/device') }),
    expect: signedIn(404),
  },
  'POST /api/v2/external-auth/:externalauth/device': {
    call: () => ({ path: api('/external-auth/github/device'), body: { device_code: 'code' } }),
    expect: signedIn(404),
  },
  'GET /api/v2/users/:user/appearance': {
    call: () => ({ path: api('/users/member/appearance') }),
    // A user's own choices are personal: those who may only see the user are told they do not exist.
    expect: signedIn(404, { member: 200, owner: 200, userAdmin: 200 }),
  },
  'PUT /api/v2/users/:user/appearance': {
    call: () => ({ path: api('/users/member/appearance'), body: { theme_preference: 'dark', terminal_font: '' } }),
    expect: signedIn(403, { member: 200, owner: 200, userAdmin: 200, otherMember: 404 }),
  },
  'GET /api/v2/users/:user/preferences': {
    call: () => ({ path: api('/users/member/preferences') }),
    expect: signedIn(404, { member: 200, owner: 200, userAdmin: 200 }),
  },
  'PUT /api/v2/users/:user/preferences': {
    call: () => ({ path: api('/users/member/preferences'), body: { task_notification_alert_dismissed: false } }),
    expect: signedIn(403, { member: 200, owner: 200, userAdmin: 200, otherMember: 404 }),
  },
  'GET /api/v2/users/:user/quiet-hours': {
    call: () => ({ path: api('/users/member/quiet-hours') }),
    // As the reference serves it: whoever may see the user may see when their workspaces may stop.
    expect: signedIn(404, { member: 200, owner: 200, userAdmin: 200, orgAdmin: 200, auditor: 200, templateAdmin: 200 }),
  },
  'PUT /api/v2/users/:user/quiet-hours': {
    call: () => ({ path: api('/users/member/quiet-hours'), body: { schedule: 'CRON_TZ=UTC 0 2 * * *' } }),
    expect: signedIn(403, { member: 200, owner: 200, userAdmin: 200, otherMember: 404 }),
  },
  'GET /api/v2/users/:user/autofill-parameters': {
    call: (world) => ({ path: api(`/users/member/autofill-parameters?template_id=${world.template.id}`) }),
    expect: signedIn(404, { member: 200, owner: 200, userAdmin: 200, ...team(404, 404, 404) }),
  },
  'GET /api/v2/users/oidc-claims': {
    call: () => ({ path: api('/users/oidc-claims') }),
    // Every subject here signs in with a password: only OIDC users have claims.
    expect: signedIn(400),
  },
  'GET /api/v2/users/:user/idp-sync-preview': {
    call: () => ({ path: api('/users/member/idp-sync-preview') }),
    // Those who read the IdP sync settings and the user's personal data; to the rest it does not exist.
    expect: signedIn(404, { owner: 200, userAdmin: 200 }),
  },
  'GET /api/v2/appearance': { call: () => ({ path: api('/appearance') }), expect: signedIn(200) },
  'PUT /api/v2/appearance': {
    call: () => ({ path: api('/appearance'), body: { application_name: '', logo_url: '' } }),
    expect: only(200, ['owner'], 403),
  },
  'GET /api/v2/regions': { call: () => ({ path: api('/regions') }), expect: signedIn(200) },
  'GET /api/v2/notifications/templates/system': { call: () => ({ path: api('/notifications/templates/system') }), expect: signedIn(200) },
  'GET /api/v2/notifications/dispatch-methods': { call: () => ({ path: api('/notifications/dispatch-methods') }), expect: signedIn(200) },
  'PUT /api/v2/notifications/templates/:notification_template/method': {
    // Unchanged for the owner (304); the kind's method is the operator's to choose.
    call: () => ({ path: api('/notifications/templates/c425f63e-716a-4bf4-ae24-78348f706c3f/method'), body: { method: '' } }),
    expect: only(304, ['owner'], 403),
  },
  'GET /api/v2/notifications/settings': { call: () => ({ path: api('/notifications/settings') }), expect: signedIn(200) },
  'PUT /api/v2/notifications/settings': {
    call: () => ({ path: api('/notifications/settings'), body: { notifier_paused: false } }),
    expect: only(304, ['owner'], 403),
  },
  'POST /api/v2/notifications/test': { call: () => ({ path: api('/notifications/test') }), expect: only(204, ['owner'], 403) },
  'GET /api/v2/notifications/messages': { call: () => ({ path: api('/notifications/messages') }), expect: only(200, ['owner'], 404) },
  'GET /api/v2/users/:user/notifications/preferences': {
    call: () => ({ path: api('/users/member/notifications/preferences') }),
    expect: signedIn(404, { member: 200, owner: 200 }),
  },
  'PUT /api/v2/users/:user/notifications/preferences': {
    call: () => ({ path: api('/users/member/notifications/preferences'), body: { template_disabled_map: {} } }),
    expect: signedIn(403, { member: 200, owner: 200, otherMember: 404 }),
  },
  'GET /api/v2/notifications/inbox': { call: () => ({ path: api('/notifications/inbox') }), expect: signedIn(200) },
  'PUT /api/v2/notifications/inbox/:id/read-status': {
    // Nobody's notification: not found for everyone.
    call: () => ({ path: api('/notifications/inbox/0e2e7c6b-1f7b-4f55-9c2b-3d6e3f0a9b11/read-status'), body: { is_read: true } }),
    expect: signedIn(404),
  },
  'PUT /api/v2/notifications/inbox/mark-all-as-read': {
    call: () => ({ path: api('/notifications/inbox/mark-all-as-read') }),
    expect: signedIn(204),
  },
  // A WebSocket: a plain request is refused.
  'GET /api/v2/notifications/inbox/watch': { call: () => ({ path: api('/notifications/inbox/watch') }), expect: signedIn(400) },
  // Sharing the member's workspace needs `update` on it: its owner, organization admins, site owners
  // and the `admin` sharer; template admins and the `use` sharer see it and are refused.
  'GET /api/v2/workspaces/:workspace/acl': {
    call: (world) => ({ path: api(`/workspaces/${world.memberWorkspace.id}/acl`) }),
    // Seeing whom it is shared with takes the right to share it, as in the reference.
    expect: memberWorkspaceUpdaters(200),
  },
  'PATCH /api/v2/workspaces/:workspace/acl': {
    // A fresh workspace, shared as `member-ws` is: the group member is given `use` on it.
    call: async (world) => ({
      path: api(`/workspaces/${await world.freshMemberWorkspace()}/acl`),
      body: { user_roles: { [world.ids.groupMember]: 'use' }, group_roles: {} },
    }),
    expect: memberWorkspaceUpdaters(204),
  },
  'DELETE /api/v2/workspaces/:workspace/acl': {
    call: async (world) => ({ path: api(`/workspaces/${await world.freshMemberWorkspace()}/acl`) }),
    expect: memberWorkspaceUpdaters(204),
  },
  // The organization's switch for sharing: every member reads it, those who manage the organization set it.
  'GET /api/v2/organizations/:organization/settings/workspace-sharing': {
    call: (world) => ({ path: api(`/organizations/${world.defaultOrgId}/settings/workspace-sharing`) }),
    expect: signedIn(200),
  },
  'PATCH /api/v2/organizations/:organization/settings/workspace-sharing': {
    // Leaves sharing on, as the other calls need it.
    call: (world) => ({ path: api(`/organizations/${world.defaultOrgId}/settings/workspace-sharing`), body: { sharing_disabled: false } }),
    expect: signedIn(403, { owner: 200, orgAdmin: 200 }),
  },
  'GET /api/v2/workspaces/:workspace/available-users': {
    call: (world) => ({ path: api(`/workspaces/${world.memberWorkspace.id}/available-users`) }),
    // Those who may change who has access to the workspace, the `admin` sharer among them; template admins and `use` sharers only read it.
    expect: memberWorkspaceUpdaters(200),
  },
  'POST /api/v2/applications/reconnecting-pty-signed-token': {
    call: async (world) => {
      const agentId = await memberAgent(world);
      const url = `${world.owner.url.replace(/^http/, 'ws')}/api/v2/workspaceagents/${agentId}/pty`;
      return { path: api('/applications/reconnecting-pty-signed-token'), body: { url, agentID: agentId } };
    },
    expect: agentConnectors(200),
  },
  // Agent routes take an agent token: a user's session is not one, so every subject here gets 401.
  'PATCH /api/v2/workspaceagents/me/app-status': {
    call: () => ({ path: api('/workspaceagents/me/app-status'), body: { app_slug: 'web', state: 'working', message: 'x' } }),
    expect: everyone(401),
  },
  'GET /api/v2/workspaceagents/me/gitsshkey': { call: () => ({ path: api('/workspaceagents/me/gitsshkey') }), expect: everyone(401) },
  'GET /api/v2/workspaceagents/me/external-auth': {
    call: () => ({ path: api('/workspaceagents/me/external-auth?id=github') }),
    expect: everyone(401),
  },
  'GET /api/v2/workspaceagents/me/gitauth': { call: () => ({ path: api('/workspaceagents/me/gitauth?id=github') }), expect: everyone(401) },
  'GET /api/v2/workspaceagents/me/reinit': {
    call: () => ({ path: api('/workspaceagents/me/reinit'), stream: true }),
    expect: everyone(401),
  },
  'GET /api/v2/workspaceagents/me/rpc': { call: () => ({ path: api('/workspaceagents/me/rpc') }), expect: everyone(401) },
  'PATCH /api/v2/workspaceagents/me/logs': {
    call: () => ({
      path: api('/workspaceagents/me/logs'),
      body: { log_source_id: '', logs: [{ created_at: '2026-01-05T10:00:00Z', level: 'info', output: 'x' }] },
    }),
    expect: everyone(401),
  },
  'POST /api/v2/workspaceagents/me/log-source': {
    call: () => ({
      path: api('/workspaceagents/me/log-source'),
      body: { id: '6b8c3e0e-1f1a-4c55-9d89-3c1f0f6b2a11', display_name: 'x', icon: '' },
    }),
    expect: everyone(401),
  },
  // Instance identity exchanges need no session (the agent has no token yet): a body without the proof is a 400 for anyone.
  'POST /api/v2/workspaceagents/aws-instance-identity': {
    call: () => ({ path: api('/workspaceagents/aws-instance-identity'), body: {} }),
    expect: everyone(400),
  },
  'POST /api/v2/workspaceagents/azure-instance-identity': {
    call: () => ({ path: api('/workspaceagents/azure-instance-identity'), body: {} }),
    expect: everyone(400),
  },
  'POST /api/v2/workspaceagents/google-instance-identity': {
    call: () => ({ path: api('/workspaceagents/google-instance-identity'), body: {} }),
    expect: everyone(400),
  },
  'GET /api/v2/applications/host': { call: () => ({ path: api('/applications/host') }), expect: signedIn(200) },
  'GET /api/v2/applications/auth-redirect': {
    // This deployment has no wildcard access URL, so no app host is a valid destination.
    call: () => ({
      path: api(`/applications/auth-redirect?redirect_uri=${encodeURIComponent('http://web--main--ws--member.apps.test/')}`),
    }),
    expect: signedIn(400),
  },
  'GET /api/v2/workspaceagents/:workspaceagent': {
    call: async (world) => ({ path: api(`/workspaceagents/${await memberAgent(world)}`) }),
    expect: memberWorkspaceReaders(200),
  },
  // The member's agent never connects: whoever may reach into the workspace learns that (400).
  'GET /api/v2/workspaceagents/:workspaceagent/pty': {
    call: async (world) => ({
      path: api(`/workspaceagents/${await memberAgent(world)}/pty?reconnect=0d4c8f5e-2b7a-4e4b-9a43-6f2f7d1c9b10`),
    }),
    expect: agentConnectors(400),
  },
  'GET /api/v2/workspaceagents/:workspaceagent/coordinate': {
    call: async (world) => ({ path: api(`/workspaceagents/${await memberAgent(world)}/coordinate?service=echo`) }),
    expect: agentConnectors(400),
  },
  'GET /api/v2/tailnet': {
    call: async (world) => ({ path: api(`/tailnet?service=echo&agent=${await memberAgent(world)}`) }),
    expect: agentConnectors(400),
  },
  // Not a WebSocket upgrade: every caller who got past authentication is told what the endpoint is.
  'GET /api/v2/derp-map': { call: () => ({ path: api('/derp-map') }), expect: signedIn(400) },
  'GET /api/v2/workspaceagents/:workspaceagent/connection': {
    call: async (world) => ({ path: api(`/workspaceagents/${await memberAgent(world)}/connection`) }),
    expect: memberWorkspaceReaders(200),
  },
  'GET /api/v2/workspaceagents/:workspaceagent/listening-ports': {
    call: async (world) => ({ path: api(`/workspaceagents/${await memberAgent(world)}/listening-ports`) }),
    expect: agentConnectors(400),
  },
  'GET /api/v2/workspaceagents/:workspaceagent/containers': {
    call: async (world) => ({ path: api(`/workspaceagents/${await memberAgent(world)}/containers`) }),
    expect: agentConnectors(400),
  },
  'POST /api/v2/workspaceagents/:workspaceagent/containers/devcontainers/:devcontainer/recreate': {
    call: async (world) => ({ path: api(`/workspaceagents/${await memberAgent(world)}/containers/devcontainers/abc/recreate`) }),
    expect: agentConnectors(400),
  },
  'GET /api/v2/debug/coordinator': { call: () => ({ path: api('/debug/coordinator') }), expect: only(200, ['owner'], 403) },
  'GET /api/v2/debug/tailnet': { call: () => ({ path: api('/debug/tailnet') }), expect: only(200, ['owner'], 403) },
  // Owners and auditors read the health report; running it (`force`) is reading it anew.
  'GET /api/v2/debug/health': { call: () => ({ path: api('/debug/health') }), expect: only(200, ['owner', 'auditor'], 403) },
  'GET /api/v2/debug/health/settings': {
    call: () => ({ path: api('/debug/health/settings') }),
    expect: only(200, ['owner', 'auditor'], 403),
  },
  'PUT /api/v2/debug/health/settings': {
    call: () => ({ path: api('/debug/health/settings'), body: { dismissed_healthchecks: [] } }),
    expect: only(200, ['owner'], 403),
  },
  // Not a WebSocket upgrade: those who may read the report get past the check and are told it is not one.
  // A plain request to the echo endpoint is told it is a WebSocket; strangers are refused first.
  'GET /api/v2/debug/ws': { call: () => ({ path: api('/debug/ws') }), expect: only(400, ['owner', 'auditor'], 403) },
  // Only the daemon's own health check, with its in-process key, opens the relay probe's two ends.
  'GET /api/v2/debug/relay-probe': { call: () => ({ path: api('/debug/relay-probe') }), expect: signedIn(403) },
  'GET /api/v2/debug/relay-probe/agent': {
    call: () => ({ path: api('/debug/relay-probe/agent?stream_id=0d4c8f5e-2b7a-4e4b-9a43-6f2f7d1c9b10') }),
    expect: signedIn(403),
  },
  'GET /api/v2/workspaceagents/me/relay': {
    call: () => ({ path: api('/workspaceagents/me/relay?stream_id=0d4c8f5e-2b7a-4e4b-9a43-6f2f7d1c9b10') }),
    expect: everyone(401),
  },
  'GET /api/v2/workspaceagents/:workspaceagent/watch-metadata': {
    call: async (world) => ({ path: api(`/workspaceagents/${await memberAgent(world)}/watch-metadata`), stream: true }),
    expect: memberWorkspaceReaders(200),
  },
  'GET /api/v2/workspaceagents/:workspaceagent/watch-metadata-ws': {
    call: async (world) => ({ path: api(`/workspaceagents/${await memberAgent(world)}/watch-metadata-ws`) }),
    // Not a WebSocket upgrade.
    expect: memberWorkspaceReaders(400),
  },
  'GET /api/v2/workspaceagents/:workspaceagent/logs': {
    call: async (world) => ({ path: api(`/workspaceagents/${await memberAgent(world)}/logs`) }),
    expect: memberWorkspaceReaders(200),
  },
  'GET /api/v2/workspaceagents/:workspaceagent/startup-logs': {
    call: async (world) => ({ path: api(`/workspaceagents/${await memberAgent(world)}/startup-logs`) }),
    expect: memberWorkspaceReaders(200),
  },
  // Deployment-wide: those who read the deployment config.
  'GET /api/v2/insights/daus': { call: () => ({ path: api('/insights/daus?tz_offset=0') }), expect: only(200, ['owner', 'auditor'], 403) },
  // Those who may view insights of some templates: organization admins see their organizations'.
  'GET /api/v2/insights/templates': {
    call: () => ({ path: api(`/insights/templates?${INSIGHTS_RANGE}&interval=day`) }),
    expect: only(200, ['owner', 'auditor', 'templateAdmin', 'orgAdmin'], 403),
  },
  'GET /api/v2/insights/user-activity': {
    call: () => ({ path: api(`/insights/user-activity?${INSIGHTS_RANGE}`) }),
    expect: only(200, ['owner', 'auditor', 'templateAdmin', 'orgAdmin'], 403),
  },
  'GET /api/v2/insights/user-latency': {
    call: (world) => ({ path: api(`/insights/user-latency?${INSIGHTS_RANGE}&template_ids=${world.template.id}`) }),
    expect: only(200, ['owner', 'auditor', 'templateAdmin', 'orgAdmin'], 403),
  },
  // Licenses belong to site owners; every signed-in user may read the entitlements.
  'POST /api/v2/licenses': {
    call: () => ({ path: api('/licenses'), body: { license: 'not-a-license' } }),
    expect: only(400, ['owner'], 403),
  },
  'GET /api/v2/licenses': { call: () => ({ path: api('/licenses') }), expect: signedIn(200) },
  // Owners and auditors read the whole log, organization admins and auditors their organizations'; the others are refused.
  'GET /api/v2/connectionlog': { call: () => ({ path: api('/connectionlog') }), expect: only(200, ['owner', 'auditor', 'orgAdmin'], 403) },
  'DELETE /api/v2/licenses/:id': { call: () => ({ path: api('/licenses/999') }), expect: only(404, ['owner'], 403) },
  'POST /api/v2/licenses/refresh-entitlements': {
    call: () => ({ path: api('/licenses/refresh-entitlements') }),
    expect: only(201, ['owner'], 403),
  },
  'GET /api/v2/entitlements': { call: () => ({ path: api('/entitlements') }), expect: signedIn(200) },
  // Those who read every user.
  'GET /api/v2/insights/user-status-counts': {
    call: () => ({ path: api('/insights/user-status-counts?tz_offset=2') }),
    expect: signedIn(200, { member: 403, otherMember: 403 }),
  },
  // Groups: everyone reads the Everyone group; organization admins and user admins manage groups,
  // auditors and template admins read them, and members see only the groups they belong to.
  'GET /api/v2/organizations/:organization/groups': {
    call: (world) => ({ path: api(`/organizations/${world.defaultOrgId}/groups`) }),
    expect: signedIn(200),
  },
  'POST /api/v2/organizations/:organization/groups': {
    call: (world) => ({ path: api(`/organizations/${world.defaultOrgId}/groups`), body: { name: world.unique('group') } }),
    expect: only(201, ['owner', 'orgAdmin', 'userAdmin'], 403),
  },
  'GET /api/v2/organizations/:organization/groups/:groupName': {
    call: (world) => ({ path: api(`/organizations/${world.defaultOrgId}/groups/Everyone`) }),
    expect: signedIn(200),
  },
  'GET /api/v2/groups': { call: () => ({ path: api('/groups') }), expect: signedIn(200) },
  'GET /api/v2/groups/:group': {
    call: (world) => ({ path: api(`/groups/${world.group}`) }),
    // The group member sees the group they are in.
    expect: signedIn(200, { member: 404, otherMember: 404, groupMember: 200 }),
  },
  'PATCH /api/v2/groups/:group': {
    call: (world) => ({ path: api(`/groups/${world.group}`), body: { quota_allowance: 1 } }),
    expect: { ...signedIn(403, { member: 404, otherMember: 404, groupMember: 403 }), owner: 200, orgAdmin: 200, userAdmin: 200 },
  },
  'DELETE /api/v2/groups/:group': {
    call: async (world) => ({
      path: api(`/groups/${(await world.owner.createGroup(world.defaultOrgId, { name: world.unique('doomed-group') })).id}`),
    }),
    expect: { ...signedIn(403, { member: 404, otherMember: 404 }), owner: 200, orgAdmin: 200, userAdmin: 200 },
  },
  // Owners and auditors; an organization's admin reads its organization's entries.
  'GET /api/v2/audit': { call: () => ({ path: api('/audit') }), expect: only(200, ['owner', 'auditor', 'orgAdmin'], 403) },
};

/**
 * Workspace and template routes: those the team subjects' reach depends on, so their entries write
 * all three out rather than take `otherMember`'s statuses.
 */
const TEAM_ROUTE =
  /^[A-Z]+ \/api\/v2\/(workspaces|workspacebuilds|workspaceagents\/:workspaceagent|templates|templateversions|tailnet|applications\/reconnecting-pty-signed-token)\b|\/:organization\/(templates|templateversions)\b|\/:user\/workspaces?\b/;

/**
 * Template routes called on the open template alone: the owner's dry run is of its `v1`, and who
 * sees a dry run is a matter of the workspace it plans, not of the template.
 */
const OPEN_TEMPLATE_ONLY: ReadonlySet<string> = new Set([
  'GET /api/v2/templateversions/:templateversion/dry-run/:jobID',
  'GET /api/v2/templateversions/:templateversion/dry-run/:jobID/resources',
  'GET /api/v2/templateversions/:templateversion/dry-run/:jobID/logs',
  'PATCH /api/v2/templateversions/:templateversion/dry-run/:jobID/cancel',
]);

/** Every call the matrix makes: each entry, and each template entry again on the restricted template. */
function matrixCalls(): { label: string; method: string; call: Entry['call']; restricted: boolean; expect: Expectation }[] {
  return Object.entries(MATRIX).flatMap(([key, entry]) => {
    const method = key.split(' ')[0] ?? 'GET';
    const calls = [{ label: key, method, call: entry.call, restricted: false, expect: entry.expect }];
    if (entry.restricted)
      calls.push({ label: `${key} (restricted template)`, method, call: entry.call, restricted: true, expect: entry.restricted });
    for (const more of entry.more ?? [])
      calls.push({ label: `${key} (${more.name})`, method, call: more.call, restricted: false, expect: more.expect });
    return calls;
  });
}

for (const dialect of TEST_DIALECTS) {
  describe(`access matrix (${dialect})`, () => {
    let test: TestDaemon;
    let world: World;
    before(async () => {
      // Hundreds of calls from a handful of callers: the limits have their own tests.
      test = await startTestDaemon({
        database: dialect,
        flags: { rateLimitDisableAll: 'true', maxTokenLifetimeMs: '8760h', provisionerDaemons: '2' },
      });
      world = await buildWorld(test);
    });
    after(async () => test.close());

    it('has an entry for every route the daemon serves, and none for routes it does not', () => {
      const served = test.daemon.app.routeList.map((route) => `${route.method} ${route.url}`).filter((key) => key !== 'GET /swagger');
      const missing = served.filter((key) => !(key in MATRIX));
      assert.deepEqual(missing, [], `routes without an access-matrix entry:\n${missing.join('\n')}`);
      const stale = Object.keys(MATRIX).filter((key) => !served.includes(key));
      assert.deepEqual(stale, [], `entries for routes that are not served:\n${stale.join('\n')}`);
    });

    it('writes out the group member and the sharers for every workspace and template route', () => {
      const unwritten = matrixCalls()
        .filter(({ label, expect }) => TEAM_ROUTE.test(label) && TEAM_SUBJECTS.some((s) => expect[s] === undefined))
        .map(({ label }) => label);
      assert.deepEqual(unwritten, [], `entries leaving a team subject to otherMember's statuses:\n${unwritten.join('\n')}`);
      // Template routes that name the template are called on the restricted one as well.
      const single = Object.entries(MATRIX)
        .filter(
          ([key, entry]) => /:(template|templateversion|templatename)\b/.test(key) && !entry.restricted && !OPEN_TEMPLATE_ONLY.has(key),
        )
        .map(([key]) => key);
      assert.deepEqual(single, [], `template routes called on the open template only:\n${single.join('\n')}`);
    });

    it('answers every subject on every route as the matrix says', async () => {
      const mismatches: string[] = [];
      const restrictedWorld: World = { ...world, template: world.restrictedTemplate, freshTemplate: world.freshRestrictedTemplate };
      for (const { label, method, call: makeCall, restricted, expect } of matrixCalls()) {
        const wanted = everySubject(expect);
        for (const subject of SUBJECTS) {
          const call = await makeCall(restricted ? restrictedWorld : world, subject);
          const token = 'token' in call ? call.token : world.tokens[subject];
          const answer = await send(test.url, method, { ...call, token });
          if (answer.status !== wanted[subject]) {
            mismatches.push(`${label} as ${subject}: wanted ${wanted[subject]}, got ${answer.status} ${answer.body.slice(0, 160)}`);
          }
          if (answer.status >= 400 && answer.body !== '' && !call.html) {
            const problem = JSON.parse(answer.body) as { message?: unknown };
            if (typeof problem.message !== 'string') mismatches.push(`${label} as ${subject}: ${answer.status} without a message`);
          }
        }
      }
      assert.deepEqual(mismatches, [], `\n${mismatches.join('\n')}`);
    });
  });
}
