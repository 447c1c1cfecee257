import type { ShareLevel, UpdateTemplateMeta } from '../../sdk/wire/index.js';
import { SHARE_LEVELS } from '../../sdk/wire/share-levels.js';
import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import { readDurationFlag } from '../duration-flag.js';
import { printJson } from '../output.js';
import { booleanOption, orgOption, requireTemplate, stringOption } from './templates-common.js';
import { printTemplate } from './templates-show.js';
import {
  ADVANCED_SCHEDULE_DEFAULTS,
  advancedSchedulingInEffect,
  advancedSettingsSet,
  NOT_IN_EFFECT,
} from './template-advanced-scheduling.js';

/** Flags that take a duration, and the template field (milliseconds) each sets. */
const DURATIONS = [
  ['defaultTtl', '--default-ttl', 'default_ttl_ms'],
  ['activityBump', '--activity-bump', 'activity_bump_ms'],
  ['failureTtl', '--failure-ttl', 'failure_ttl_ms'],
  ['dormancyThreshold', '--dormancy-threshold', 'time_til_dormant_ms'],
  ['dormancyAutoDeletion', '--dormancy-auto-deletion', 'time_til_dormant_autodelete_ms'],
] as const;

/** Flags that take true or false, and the template field each sets. */
const BOOLEANS = [
  ['requireActiveVersion', '--require-active-version', 'require_active_version'],
  ['allowUserCancelWorkspaceJobs', '--allow-user-cancel-workspace-jobs', 'allow_user_cancel_workspace_jobs'],
  ['allowUserAutostart', '--allow-user-autostart', 'allow_user_autostart'],
  ['allowUserAutostop', '--allow-user-autostop', 'allow_user_autostop'],
] as const;

/** `cove templates edit`: metadata and scheduling. Only the flags given change anything. */
export const editCommand: CommandSpec = {
  name: 'edit',
  summary: "Change a template's metadata and scheduling",
  arguments: [{ name: 'template', description: 'Template name', required: true }],
  options: [
    orgOption,
    { flags: '--name <name>', description: 'Rename the template' },
    { flags: '--display-name <name>', description: 'Display name' },
    { flags: '--description <text>', description: 'Description' },
    { flags: '--icon <url>', description: 'Icon URL or /icon/ path' },
    { flags: '--deprecated <message>', description: 'Deprecate it with this message ("" to undeprecate)' },
    { flags: '--default-ttl <duration>', description: 'Stop workspaces this long after they start, e.g. 8h (0 for never)' },
    { flags: '--activity-bump <duration>', description: 'Extend the deadline by this much on activity, e.g. 1h' },
    { flags: '--failure-ttl <duration>', description: 'Stop failed workspaces after this long' },
    { flags: '--dormancy-threshold <duration>', description: 'Mark unused workspaces dormant after this long' },
    { flags: '--dormancy-auto-deletion <duration>', description: 'Delete dormant workspaces after this long' },
    { flags: '--require-active-version [bool]', description: 'Workspaces must build on the active version' },
    { flags: '--allow-user-cancel-workspace-jobs [bool]', description: 'Let users cancel their workspace builds' },
    { flags: '--allow-user-autostart [bool]', description: 'Let users set an autostart schedule' },
    { flags: '--allow-user-autostop [bool]', description: 'Let users set their own autostop' },
    {
      flags: '--max-port-share-level <level>',
      description: 'Widest level workspaces may share ports at: owner, organization, authenticated or public',
    },
  ],
  examples: [
    'cove templates edit python --display-name "Python" --default-ttl 8h --activity-bump 1h',
    'cove templates edit python --require-active-version=false',
    'cove templates edit python --max-port-share-level authenticated',
  ],
  async run(context, [name = ''], options) {
    const changes = requestedChanges(options);
    if (Object.keys(changes).length === 0)
      throw new CliError('Nothing to change.', { hint: 'See "cove templates edit --help" for the flags.' });
    const client = await context.client();
    const template = await requireTemplate(client, String(options['org']), name);
    const updated = await client.updateTemplate(template.id, changes);
    if (updated === undefined) {
      if (context.json) printJson(context.io, template);
      else context.say(`Template "${template.name}": no changes.`);
      return 0;
    }
    // A schedule setting the license does not cover is kept but does nothing: say so when one is set.
    const touchesAdvanced = Object.keys(changes).some((field) => field in ADVANCED_SCHEDULE_DEFAULTS);
    const advancedScheduling = touchesAdvanced ? await advancedSchedulingInEffect(client) : undefined;
    if (context.json) {
      printJson(context.io, updated);
      if (advancedScheduling === false) {
        for (const field of advancedSettingsSet(updated).filter((field) => field in changes))
          context.io.stderr.write(`note: ${field}: ${NOT_IN_EFFECT}\n`);
      }
    } else {
      context.say(`Updated template "${updated.name}".`);
      printTemplate(context, updated, { advancedScheduling });
    }
    return 0;
  },
};

function requestedChanges(options: Readonly<Record<string, unknown>>): UpdateTemplateMeta {
  const changes: Record<string, unknown> = {};
  for (const [key, field] of [
    ['name', 'name'],
    ['displayName', 'display_name'],
    ['description', 'description'],
    ['icon', 'icon'],
    ['deprecated', 'deprecation_message'],
  ] as const) {
    const value = stringOption(options, key);
    if (value !== undefined) changes[field] = value;
  }
  for (const [key, flag, field] of DURATIONS) {
    const text = stringOption(options, key);
    if (text === undefined) continue;
    const ms = readDurationFlag(text, flag);
    if (ms === undefined || ms < 0) throw new CliError(`${flag} "${text}" is not a duration such as 8h, 30m or 0.`);
    changes[field] = ms;
  }
  for (const [key, flag, field] of BOOLEANS) {
    const value = booleanOption(options, key, flag);
    if (value !== undefined) changes[field] = value;
  }
  const level = stringOption(options, 'maxPortShareLevel');
  if (level !== undefined) changes['max_port_share_level'] = shareLevel(level);
  return changes as UpdateTemplateMeta;
}

function shareLevel(text: string): ShareLevel {
  const level = SHARE_LEVELS.find((candidate) => candidate === text.toLowerCase());
  if (!level)
    throw new CliError(`--max-port-share-level "${text}" is not a share level.`, { hint: `Use one of: ${SHARE_LEVELS.join(', ')}.` });
  return level;
}
