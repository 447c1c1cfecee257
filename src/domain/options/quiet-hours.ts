import { DEFAULT_QUIET_HOURS_SCHEDULE } from '../schedule/cron-schedule.js';
import { parseQuietHoursSchedule } from '../schedule/quiet-hours.js';
import { OptionError } from './option-error.js';
import type { OptionDefinition, OptionGroup } from './option-types.js';

/** The quiet-hours section of `--help` and of the YAML file. */
export const QUIET_HOURS_GROUP: OptionGroup = {
  name: 'User Quiet Hours Schedule',
  yaml: 'user_quiet_hours_schedule',
  description:
    "When workspaces may be stopped for their template's autostop requirement: each user's daily quiet hours, " +
    'so required stops do not land in the middle of their working day.',
};

/** What the quiet-hours options resolve to. */
export interface QuietHoursValues {
  readonly defaultQuietHoursSchedule: string;
  readonly allowCustomQuietHours: boolean;
}

/** The quiet-hours options, in `--help` order. */
export const QUIET_HOURS_OPTIONS: readonly OptionDefinition<keyof QuietHoursValues>[] = [
  {
    key: 'defaultQuietHoursSchedule',
    name: 'Default Quiet Hours Schedule',
    flag: 'default-quiet-hours-schedule',
    env: 'COVE_QUIET_HOURS_DEFAULT_SCHEDULE',
    yaml: 'default_quiet_hours_schedule',
    group: QUIET_HOURS_GROUP,
    configPath: ['user_quiet_hours_schedule', 'default_schedule'],
    kind: 'string',
    default: DEFAULT_QUIET_HOURS_SCHEDULE,
    description:
      'The daily quiet hours of users who have not chosen their own: a cron text `[CRON_TZ=<zone>] <minute> <hour> * * *` ' +
      "with a single minute and hour. A template's autostop requirement stops workspaces at the start of their owner's quiet hours.",
  },
  {
    key: 'allowCustomQuietHours',
    name: 'Allow Custom Quiet Hours',
    flag: 'allow-custom-quiet-hours',
    env: 'COVE_ALLOW_CUSTOM_QUIET_HOURS',
    yaml: 'allow_custom_quiet_hours',
    group: QUIET_HOURS_GROUP,
    configPath: ['user_quiet_hours_schedule', 'allow_user_custom'],
    kind: 'bool',
    default: 'true',
    description: 'Let users choose their own quiet hours; when false, everyone has the default schedule.',
  },
];

/** Stops the daemon from starting with a default schedule that is not daily quiet hours. */
export function checkQuietHoursOptions(values: QuietHoursValues): void {
  try {
    parseQuietHoursSchedule(values.defaultQuietHoursSchedule);
  } catch (error) {
    throw new OptionError(`--default-quiet-hours-schedule: "${values.defaultQuietHoursSchedule}": ${(error as Error).message}`);
  }
}
