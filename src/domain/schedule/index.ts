/**
 * Workspace scheduling rules, pure and clock-free: schedule texts and their occurrences,
 * `next_start_at`, build deadlines and activity bumps, and the autobuild executor's decisions.
 */
export {
  ALL_DAYS_BITMAP,
  DEFAULT_QUIET_HOURS_SCHEDULE,
  dayNamesFromBitmap,
  daysBitmapFromNames,
  next,
  parseDailySchedule,
  parseWeeklySchedule,
  ScheduleError,
  weekdayInBitmap,
  weeklyScheduleProblem,
  zonedParts,
  zonedTimeToUtc,
  type CronSchedule,
  type LocalDateTime,
  type ZonedParts,
} from './cron-schedule.js';
export { nextAutostart, nextOccurrenceAllowed, type NextAutostartParams } from './autostart.js';
export {
  activityBump,
  computeDeadlines,
  effectiveTtlMs,
  MAX_TTL_MS,
  MIN_TTL_MS,
  validateTtlMs,
  type ActivityBumpParams,
  type AutostopRequirement,
  type DeadlineParams,
  type Deadlines,
} from './autostop.js';
export {
  decideTransition,
  deletingAtFor,
  type LifecycleBuildReason,
  type LifecycleDecision,
  type LifecycleInput,
  type LifecycleJobStatus,
  type LifecycleRule,
} from './lifecycle-decisions.js';
export {
  effectiveQuietHours,
  parseQuietHoursSchedule,
  quietHoursProblem,
  quietHoursSummary,
  type QuietHoursProblem,
  type QuietHoursSettings,
  type QuietHoursSummary,
} from './quiet-hours.js';
