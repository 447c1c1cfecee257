import { formatDuration } from '../../lib/duration.js';
import type { Template } from '../../sdk/wire/index.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { humanTime, printJson } from '../output.js';
import { orgOption, requireTemplate } from './templates-common.js';
import {
  advancedSchedulingInEffect,
  advancedSettingsSet,
  NOT_IN_EFFECT,
  type AdvancedScheduleField,
} from './template-advanced-scheduling.js';

const yesNo = (value: boolean) => (value ? 'yes' : 'no');
const duration = (ms: number) => (ms === 0 ? 'off' : formatDuration(ms));

/**
 * A template as `key: value` lines, for people. When `advancedScheduling` is false (the deployment
 * is not entitled to it), advanced schedule settings that are set say they are stored but not in effect.
 */
export function printTemplate(
  context: CommandContext,
  template: Template,
  options: { readonly activeVersionName?: string | undefined; readonly advancedScheduling?: boolean | undefined } = {},
): void {
  const idle = options.advancedScheduling === false ? advancedSettingsSet(template) : [];
  const gated = (field: AdvancedScheduleField, value: string) => (idle.includes(field) ? `${value} (${NOT_IN_EFFECT})` : value);
  const { activeVersionName } = options;
  const rows: [string, string][] = [
    ['name', template.name],
    ['display name', template.display_name],
    ['description', template.description],
    ['organization', template.organization_name],
    ['provisioner', template.provisioner],
    ['active version', activeVersionName ? `${activeVersionName} (${template.active_version_id})` : template.active_version_id],
    ['active users', String(template.active_user_count)],
    ['default ttl', duration(template.default_ttl_ms)],
    ['activity bump', duration(template.activity_bump_ms)],
    ['failure ttl', gated('failure_ttl_ms', duration(template.failure_ttl_ms))],
    ['dormancy threshold', gated('time_til_dormant_ms', duration(template.time_til_dormant_ms))],
    ['dormancy auto-deletion', gated('time_til_dormant_autodelete_ms', duration(template.time_til_dormant_autodelete_ms))],
    ['require active version', yesNo(template.require_active_version)],
    ['users may cancel builds', yesNo(template.allow_user_cancel_workspace_jobs)],
    ['users may autostart', gated('allow_user_autostart', yesNo(template.allow_user_autostart))],
    ['users may autostop', gated('allow_user_autostop', yesNo(template.allow_user_autostop))],
    ['deprecated', template.deprecated ? `yes: ${template.deprecation_message}` : 'no'],
    ['created by', template.created_by_name],
    ['created at', humanTime(template.created_at)],
    ['updated at', humanTime(template.updated_at)],
  ];
  const width = Math.max(...rows.map(([key]) => key.length));
  for (const [key, value] of rows) context.io.stdout.write(`${`${key}:`.padEnd(width + 2)}${value}\n`);
}

/** `cove templates show`: one template in detail. */
export const showCommand: CommandSpec = {
  name: 'show',
  summary: 'Show a template',
  arguments: [{ name: 'template', description: 'Template name', required: true }],
  options: [orgOption],
  async run(context, [name = ''], options) {
    const client = await context.client();
    const template = await requireTemplate(client, String(options['org']), name);
    if (context.json) {
      printJson(context.io, template);
      return 0;
    }
    const [active, advancedScheduling] = await Promise.all([
      client.templateVersion(template.active_version_id),
      advancedSchedulingInEffect(client),
    ]);
    printTemplate(context, template, { activeVersionName: active.name, advancedScheduling });
    return 0;
  },
};
