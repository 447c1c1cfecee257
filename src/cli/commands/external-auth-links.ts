import { ApiError } from '../../sdk/api-error.js';
import type { CoveClient } from '../../sdk/client.js';
import type { ExternalAuthLink, ExternalAuthLinkProvider } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { readDurationFlag } from '../duration-flag.js';
import { humanTime, printJson, type Column } from '../output.js';

/** One provider as `cove external-auth list` shows it, with the caller's link to it if any. */
interface LinkRow {
  readonly id: string;
  readonly type: string;
  readonly display_name: string;
  readonly linked: boolean;
  /** The account's login at the provider, when the provider's validate URL describes it. */
  readonly account: string;
  readonly expires: string | null;
  /** `ok`, `re-link needed`, or `not linked`. */
  readonly status: string;
  readonly device: boolean;
}

const LINK_COLUMNS: readonly Column<LinkRow>[] = [
  { heading: 'id', value: (row) => row.id },
  { heading: 'type', value: (row) => row.type },
  { heading: 'linked', value: (row) => (row.linked ? 'yes' : 'no') },
  { heading: 'account', value: (row) => row.account || '-' },
  { heading: 'expires', value: (row) => (row.linked ? humanTime(row.expires ?? undefined) : '-') },
  { heading: 'status', value: (row) => row.status },
  { heading: 'name', value: (row) => row.display_name, hidden: true },
  { heading: 'device', value: (row) => (row.device ? 'yes' : 'no'), hidden: true },
];

/** The link's status in words: a link whose token expired without a refresh must be made again. */
function linkStatus(link: ExternalAuthLink | undefined): string {
  if (link === undefined) return 'not linked';
  return link.authenticated && link.validate_error === '' ? 'ok' : 're-link needed';
}

async function linkRows(client: CoveClient): Promise<LinkRow[]> {
  const { providers, links } = await client.externalAuthLinks();
  const byId = new Map(links.map((link) => [link.provider_id, link]));
  const rows = await Promise.all(
    providers.map(async (provider): Promise<LinkRow> => {
      const link = byId.get(provider.id);
      // The account is the provider's to tell; a provider that cannot answer leaves it blank.
      const account =
        link === undefined
          ? ''
          : await client.externalAuth(provider.id).then(
              (answer) => answer.user?.login ?? '',
              () => '',
            );
      return {
        id: provider.id,
        type: provider.type,
        display_name: provider.display_name,
        linked: link !== undefined,
        account,
        expires: link === undefined || link.expires.startsWith('0001-') ? null : link.expires,
        status: linkStatus(link),
        device: provider.device,
      };
    }),
  );
  // A link to a provider no longer configured is still listed, so that it can be removed.
  for (const link of links.filter((l) => !providers.some((p) => p.id === l.provider_id))) {
    rows.push({
      id: link.provider_id,
      type: '',
      display_name: link.provider_id,
      linked: true,
      account: '',
      expires: link.expires.startsWith('0001-') ? null : link.expires,
      status: 'provider removed',
      device: false,
    });
  }
  return rows;
}

const listCommand: CommandSpec = {
  name: 'list',
  aliases: ['ls'],
  summary: 'List the external auth providers and your links to them',
  description:
    'Lists the external auth providers (GitHub, GitLab...) configured on the deployment, whether you ' +
    'linked your account at each, as whom, when its access token expires, and whether the link works ' +
    '("re-link needed" when its token expired and could not be refreshed: run "cove external-auth link ID").',
  columns: LINK_COLUMNS,
  examples: ['cove external-auth list', 'cove external-auth list -c id,status', 'cove external-auth list -o json'],
  async run(context) {
    const rows = await linkRows(await context.client());
    if (rows.length === 0 && !context.json) {
      context.io.stderr.write('No external auth providers are configured on this deployment.\n');
      return 0;
    }
    context.printData(rows, LINK_COLUMNS);
    return 0;
  },
};

/** The provider `id`, or an error that lists the configured ones. */
async function requireProvider(client: CoveClient, id: string): Promise<{ provider: ExternalAuthLinkProvider; link?: ExternalAuthLink }> {
  const { providers, links } = await client.externalAuthLinks();
  const provider = providers.find((p) => p.id === id);
  if (provider === undefined) {
    throw new CliError(`No external auth provider "${id}" is configured on this deployment.`, {
      hint: providers.length > 0 ? `Its providers are: ${providers.map((p) => p.id).join(', ')}.` : 'It has none.',
    });
  }
  const link = links.find((l) => l.provider_id === id);
  return link === undefined ? { provider } : { provider, link };
}

/** Resolves after `ms`, or at once when the command is interrupted. */
function pause(ms: number, interrupt: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      interrupt?.removeEventListener('abort', done);
      resolve();
    }
    interrupt?.addEventListener('abort', done, { once: true });
  });
}

/** The device flow (RFC 8628) in the terminal: the user enters the code at the provider while cove polls. */
async function linkWithDevice(
  context: CommandContext,
  client: CoveClient,
  provider: ExternalAuthLinkProvider,
  deadline: number,
): Promise<void> {
  const device = await client.externalAuthDevice(provider.id);
  context.io.stderr.write(
    `To link your ${provider.display_name} account, open ${device.verification_uri} and enter the code ${device.user_code}\n` +
      'Waiting for you to enter it...\n',
  );
  let intervalMs = Math.max(device.interval, 1) * 1000;
  const expiresAt = Math.min(deadline, Date.now() + device.expires_in * 1000);
  for (;;) {
    await pause(intervalMs, context.io.interrupt);
    if (context.io.interrupt?.aborted) throw new CliError('Interrupted before the link was made.');
    if (Date.now() > expiresAt) throw timedOut(provider.id);
    try {
      await client.exchangeExternalAuthDevice(provider.id, { device_code: device.device_code });
      return;
    } catch (error) {
      const code = error instanceof ApiError && error.status === 400 ? `${error.message} ${error.detail ?? ''}` : '';
      if (code.includes('authorization_pending')) continue;
      // The provider asks to poll less often: RFC 8628 says by 5 more seconds.
      if (code.includes('slow_down')) {
        intervalMs += 5000;
        continue;
      }
      throw error;
    }
  }
}

/** The link page of the dashboard, then a wait until the link is new (made or made again since we started). */
async function linkInBrowser(
  context: CommandContext,
  client: CoveClient,
  provider: ExternalAuthLinkProvider,
  before: ExternalAuthLink | undefined,
  deadline: number,
): Promise<void> {
  const page = `${context.deploymentUrl().replace(/\/+$/, '')}/external-auth/${encodeURIComponent(provider.id)}`;
  context.io.stderr.write(`To link your ${provider.display_name} account, open ${page}\nWaiting for you to link it...\n`);
  for (;;) {
    await pause(1000, context.io.interrupt);
    if (context.io.interrupt?.aborted) throw new CliError('Interrupted before the link was made.');
    const { links } = await client.externalAuthLinks();
    const link = links.find((l) => l.provider_id === provider.id);
    if (link !== undefined && link.authenticated && link.updated_at !== before?.updated_at) return;
    if (Date.now() > deadline) throw timedOut(provider.id);
  }
}

function timedOut(id: string): CliError {
  return new CliError(`The ${id} account was not linked in time.`, {
    hint: `Run "cove external-auth link ${id}" again, or give it longer with --timeout.`,
  });
}

const linkCommand: CommandSpec = {
  name: 'link',
  summary: 'Link your account at an external auth provider',
  description:
    'Links your account at PROVIDER (its id, as "cove external-auth list" shows), or links it again ' +
    'when its token can no longer be refreshed. With a provider that has the device flow, cove shows a ' +
    'code to enter at the provider and waits; otherwise it prints the page of the deployment where you ' +
    'link it in a browser, and waits until you have.',
  arguments: [{ name: 'provider', description: 'the id of the external auth provider, e.g. github', required: true }],
  options: [{ flags: '--timeout <duration>', description: 'How long to wait for the link', default: '10m' }],
  examples: ['cove external-auth link github', 'cove external-auth link gitlab --timeout 2m'],
  async run(context, [id = ''], options) {
    const text = String(options['timeout'] ?? '10m');
    const timeoutMs = readDurationFlag(text, '--timeout');
    if (timeoutMs === undefined || timeoutMs <= 0)
      throw new CliError(`--timeout "${text}" is not a duration.`, { hint: 'For example 2m or 30s.' });
    const client = await context.client();
    const { provider, link } = await requireProvider(client, id);
    const deadline = Date.now() + timeoutMs;
    if (provider.device) await linkWithDevice(context, client, provider, deadline);
    else await linkInBrowser(context, client, provider, link, deadline);
    const answer = await client.externalAuth(provider.id);
    if (context.json) printJson(context.io, answer);
    else context.io.stdout.write(`Linked your ${provider.display_name} account${answer.user?.login ? ` (${answer.user.login})` : ''}.\n`);
    return 0;
  },
};

const unlinkCommand: CommandSpec = {
  name: 'unlink',
  summary: 'Remove your link to an external auth provider',
  description:
    'Removes your link to PROVIDER: git and "cove external-auth access-token" in your workspaces no ' +
    'longer get its token. Where the provider can revoke tokens, the deployment revokes it there too; ' +
    'cove says whether it did.',
  arguments: [{ name: 'provider', description: 'the id of the external auth provider, e.g. github', required: true }],
  examples: ['cove external-auth unlink github', 'cove external-auth unlink github -o json'],
  async run(context, [id = '']) {
    const client = await context.client();
    const answer = await client.unlinkExternalAuth(id);
    if (context.json) {
      printJson(context.io, answer);
      return 0;
    }
    const revoked = answer.token_revoked
      ? 'the provider revoked its token'
      : `the provider did not revoke its token${answer.token_revocation_error ? ` (${answer.token_revocation_error})` : ''}`;
    context.io.stdout.write(`Unlinked ${id}: ${revoked}.\n`);
    return 0;
  },
};

/** The subcommands that manage the caller's own links, signed in as a user. */
export const externalAuthLinkCommands: readonly CommandSpec[] = [listCommand, linkCommand, unlinkCommand];
