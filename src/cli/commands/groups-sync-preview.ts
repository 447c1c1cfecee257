import type { IdpSyncGroupOutcome, IdpSyncPreview, IdpSyncRoleOutcome } from '../../sdk/wire/index.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { humanTime, printJson, printTable } from '../output.js';

const GROUP_COLUMNS = [
  { heading: 'claim value', value: (g: IdpSyncGroupOutcome) => g.claim_value },
  { heading: 'group', value: (g: IdpSyncGroupOutcome) => g.group_name },
  { heading: 'status', value: (g: IdpSyncGroupOutcome) => g.status.replace('_', '-') },
  { heading: 'member now', value: (g: IdpSyncGroupOutcome) => (g.member ? 'yes' : 'no') },
];

const ROLE_COLUMNS = [
  { heading: 'claim value', value: (r: IdpSyncRoleOutcome) => r.claim_value },
  { heading: 'role', value: (r: IdpSyncRoleOutcome) => r.role },
  { heading: 'status', value: (r: IdpSyncRoleOutcome) => r.status },
];

const list = (names: readonly string[]) => (names.length === 0 ? '(none)' : names.join(', '));

/** The preview for people: each part of sync, what arrived and what it makes of it. */
function printPreview(context: CommandContext, preview: IdpSyncPreview): void {
  const say = (line: string) => context.say(line);
  say(`User ${preview.username} (signs in with ${preview.login_type})`);
  if (preview.claims === null) {
    say('No OIDC claims stored: the user has not signed in with OIDC yet, so sync has nothing to work from.');
  } else {
    say(
      `Claims of the last OIDC sign-in (${humanTime(preview.claims_received_at ?? undefined)}): ${Object.keys(preview.claims).sort().join(', ')}`,
    );
  }
  say('');
  const groups = preview.group_sync;
  if (!groups.enabled) {
    say('Group sync is off (--oidc-group-field is not set).');
  } else {
    const filter = groups.regex_filter === '' ? 'no regex filter' : `regex filter ${groups.regex_filter}`;
    say(
      `Group sync: claim "${groups.field}" = ${list(groups.claim_values)} (${filter}, auto-create ${groups.auto_create_missing ? 'on' : 'off'})`,
    );
    if (groups.error !== '') say(`The claim cannot be read, so memberships are left as they are: ${groups.error}`);
    if (groups.groups.length > 0) printTable(context.io, groups.groups, GROUP_COLUMNS);
    say(`Removed from at the next sign-in: ${list(groups.groups_removed)}`);
  }
  if (preview.allowed_groups.groups.length > 0) {
    const verdict = preview.allowed_groups.allowed ? 'these claims are let in' : 'these claims are refused';
    say(`Allowed groups: ${list(preview.allowed_groups.groups)}: ${verdict}`);
  }
  say('');
  const roles = preview.role_sync;
  if (!roles.enabled) {
    say('Role sync is off (--oidc-user-role-field is not set).');
  } else {
    say(`Role sync: claim "${roles.field}" = ${list(roles.claim_values)}`);
    if (roles.error !== '') say(`The claim cannot be read, so sign-in is refused: ${roles.error}`);
    if (roles.roles.length > 0) printTable(context.io, roles.roles, ROLE_COLUMNS);
    say(`Site roles after sync: ${list(roles.site_roles)}`);
  }
}

/** `cove groups sync`: what group and role sync from the OIDC provider make of a user's claims. */
export const groupsSyncCommand: CommandSpec = {
  name: 'sync',
  summary: 'Inspect group and role sync from the OIDC provider',
  subcommands: [
    {
      name: 'preview',
      summary: "Show a user's last OIDC claims and the groups and roles sync maps them to",
      arguments: [{ name: 'user', description: 'Username, email or id ("me" for yourself)', required: true }],
      examples: ['cove groups sync preview alice', 'cove groups sync preview alice -o json'],
      async run(context, [user = '']) {
        const preview = await (await context.client()).idpSyncPreview(user);
        if (context.json) return printJson(context.io, preview);
        printPreview(context, preview);
      },
    },
  ],
};
