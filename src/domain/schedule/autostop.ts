import { addMs } from '../../lib/duration.js';
import { nextOccurrenceAllowed } from './autostart.js';
import {
  ALL_DAYS_BITMAP,
  DEFAULT_QUIET_HOURS_SCHEDULE,
  next,
  parseDailySchedule,
  ScheduleError,
  weekdayInBitmap,
  zonedParts,
  zonedTimeToUtc,
} from './cron-schedule.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** The shortest workspace TTL the reference accepts, after truncation to whole minutes. */
export const MIN_TTL_MS = MINUTE_MS;
/** The longest workspace TTL the reference accepts. */
export const MAX_TTL_MS = 30 * DAY_MS;

/**
 * A build started this close to the required stop skips it for the next one, so nobody's
 * workspace stops minutes after it came up.
 */
const REQUIREMENT_LEEWAY_MS = 2 * HOUR_MS;
/**
 * Occurrences are searched from 15 minutes before the stop day's midnight, so quiet hours at
 * midnight itself still count for that day (the search is strictly "after").
 */
const REQUIREMENT_BUFFER_MS = 15 * MINUTE_MS;
/** Autostop-requirement weeks are counted from this Monday, in the quiet-hours zone. */
const EPOCH_MONDAY = { year: 2023, month: 1, day: 2 } as const;

/** The template's `autostop_requirement`. */
export interface AutostopRequirement {
  /** Required-stop weekdays (Monday = bit 0 .. Sunday = bit 6); 0 means no requirement. */
  readonly daysBitmap: number;
  /** Stops are required every this many weeks; 0 counts as 1. */
  readonly weeks: number;
}

/** What a build's deadlines depend on, read when its job completes. */
export interface DeadlineParams {
  /** When the build's job completed. */
  readonly now: Date;
  /** The workspace's `ttl_ms`; null or 0 when autostop is off. */
  readonly workspaceTtlMs: number | null;
  /** The template's `default_ttl_ms`. */
  readonly templateDefaultTtlMs: number;
  /** The template's `allow_user_autostop`; when false the template default TTL applies. */
  readonly allowUserAutostop: boolean;
  /** The workspace's `autostart_schedule`, so a deadline past the next autostart moves with it. */
  readonly autostartSchedule?: string | null;
  /** The template's autostart days bitmap; every day when omitted. */
  readonly autostartDays?: number;
  /** The template's autostop requirement; none when omitted. */
  readonly autostopRequirement?: AutostopRequirement | null;
  /**
   * The owner's quiet-hours schedule (a daily cron). Omitted means the deployment default
   * ({@link DEFAULT_QUIET_HOURS_SCHEDULE}); null means quiet hours are unavailable (not
   * entitled), and no max deadline is set.
   */
  readonly userQuietHours?: string | null;
}

/** A build's deadlines; null is the API's "no autostop" (a zero time in the reference). */
export interface Deadlines {
  readonly deadline: Date | null;
  readonly maxDeadline: Date | null;
}

/** The TTL a build uses: the workspace's when users may set it, else the template default. */
export function effectiveTtlMs(params: Pick<DeadlineParams, 'workspaceTtlMs' | 'templateDefaultTtlMs' | 'allowUserAutostop'>): number {
  const ttl = params.allowUserAutostop ? params.workspaceTtlMs : params.templateDefaultTtlMs;
  return ttl && ttl > 0 ? ttl : 0;
}

/**
 * A build's `deadline` and `max_deadline` (the reference's `CalculateAutostop`): the deadline is
 * now + TTL, moved to after the next autostart when it would pass it; the max deadline is the
 * first quiet-hours start on a required weekday of a required week; the deadline never passes it.
 * @throws ScheduleError when the quiet hours do not parse, or a computed time is in the past.
 */
export function computeDeadlines(params: DeadlineParams): Deadlines {
  const { now } = params;
  const deadline = ttlDeadline(params);
  const maxDeadline = requirementDeadline(params);
  const capped = maxDeadline && (!deadline || maxDeadline < deadline) ? maxDeadline : deadline;
  if ((capped && capped < now) || (maxDeadline && maxDeadline < now)) {
    const times = `deadline=${capped?.toISOString() ?? 'none'} maxDeadline=${maxDeadline?.toISOString() ?? 'none'} now=${now.toISOString()}`;
    throw new ScheduleError(`deadline calculation error, computed deadline or max deadline is in the past for workspace build: ${times}`);
  }
  return { deadline: capped, maxDeadline };
}

function ttlDeadline(params: DeadlineParams): Date | null {
  const ttl = effectiveTtlMs(params);
  if (ttl === 0) return null;
  const deadline = addMs(params.now, ttl);
  if (!params.autostartSchedule) return deadline;
  // Started in the evening after an autostop: the TTL counts from tomorrow's autostart instead
  // of stopping the workspace in the middle of the next working day.
  const autostart = nextOccurrenceAllowed(params.autostartSchedule, params.now, params.autostartDays ?? ALL_DAYS_BITMAP);
  if (autostart?.allowed && deadline > autostart.at) return addMs(autostart.at, ttl);
  return deadline;
}

interface LocalDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

function requirementDeadline(params: DeadlineParams): Date | null {
  const requirement = params.autostopRequirement;
  if (!requirement || (requirement.daysBitmap & ALL_DAYS_BITMAP) === 0) return null;
  const quietText = params.userQuietHours === undefined ? DEFAULT_QUIET_HOURS_SCHEDULE : params.userQuietHours;
  if (quietText === null) return null;
  const quiet = parseDailySchedule(quietText);
  const zone = quiet.timezone;
  const now = params.now.getTime();

  let stopDay = localDateOf(new Date(now + REQUIREMENT_LEEWAY_MS), zone);
  if (requirement.weeks > 1) stopDay = nextApplicableMonday(stopDay, requirement.weeks);
  // Today's quiet hours are too close (or gone): the first candidate day is tomorrow.
  const firstQuietHours = next(quiet, new Date(midnight(stopDay, zone).getTime() - REQUIREMENT_BUFFER_MS));
  if (firstQuietHours.getTime() < now + REQUIREMENT_LEEWAY_MS) stopDay = addDays(stopDay, 1);
  stopDay = firstRequiredDay(stopDay, requirement.daysBitmap);

  const stopMidnight = midnight(stopDay, zone).getTime();
  const checkFrom = stopMidnight < now + HOUR_MS ? now + HOUR_MS : stopMidnight - REQUIREMENT_BUFFER_MS;
  return next(quiet, new Date(checkFrom));
}

/**
 * The day itself when its week (counted from the epoch Monday) is a multiple of `weeks`,
 * else the Monday of the next week that is.
 */
function nextApplicableMonday(day: LocalDate, weeks: number): LocalDate {
  const days = Math.round((dateMs(day) - dateMs(EPOCH_MONDAY)) / DAY_MS);
  if (days < 0) throw new ScheduleError('the system clock is before 2023-01-02, cannot calculate the template autostop requirement');
  const week = Math.floor(days / 7);
  const remainder = week % weeks;
  return remainder === 0 ? day : addDays(EPOCH_MONDAY, (week + weeks - remainder) * 7);
}

/** The first day from `day` on (within a week) whose weekday the requirement lists. */
function firstRequiredDay(day: LocalDate, daysBitmap: number): LocalDate {
  for (let offset = 0; offset < 7; offset += 1) {
    const candidate = addDays(day, offset);
    if (weekdayInBitmap(daysBitmap, new Date(dateMs(candidate)).getUTCDay())) return candidate;
  }
  throw new ScheduleError('could not find suitable day for template autostop requirement in the next 7 days');
}

function localDateOf(instant: Date, zone: string): LocalDate {
  const { year, month, day } = zonedParts(instant, zone);
  return { year, month, day };
}

function midnight(day: LocalDate, zone: string): Date {
  return zonedTimeToUtc({ ...day, hour: 0, minute: 0, second: 0 }, zone);
}

function dateMs(day: LocalDate): number {
  return Date.UTC(day.year, day.month - 1, day.day);
}

function addDays(day: LocalDate, days: number): LocalDate {
  const shifted = new Date(dateMs(day) + days * DAY_MS);
  return { year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() };
}

/** What an activity bump depends on. The caller has checked the latest build is a completed start. */
export interface ActivityBumpParams {
  /** The build's deadline; null (no autostop) is never bumped. */
  readonly deadline: Date | null;
  readonly maxDeadline: Date | null;
  readonly now: Date;
  /** The template's `activity_bump_ms`; 0 turns bumping off. */
  readonly bumpMs: number;
  /** The workspace's next autostart, if any. */
  readonly nextAutostart?: Date | null;
  /** The build's TTL ({@link effectiveTtlMs}), applied from the next autostart when a bump crosses it. */
  readonly ttlMs?: number;
}

/**
 * The deadline after activity (the reference's `ActivityBumpWorkspace`), or null when the rule
 * does not apply: no bump configured, no deadline, or less than 5% of the bump used up so far.
 * The deadline moves to now + bump, or to the next autostart + TTL when the bump would cross
 * that autostart; it never decreases and never passes the max deadline.
 */
export function activityBump(params: ActivityBumpParams): Date | null {
  const { deadline, maxDeadline, bumpMs } = params;
  const now = params.now.getTime();
  if (bumpMs <= 0 || !deadline) return null;
  const interval = bumpInterval(params, now);
  if (interval <= 0) return null;
  // Skipping bumps until 5% of the interval is used saves a write on every agent report.
  if (!(deadline.getTime() - 0.95 * interval < now)) return null;
  const bumped = Math.max(deadline.getTime(), now + interval);
  return new Date(maxDeadline ? Math.min(bumped, maxDeadline.getTime()) : bumped);
}

function bumpInterval(params: ActivityBumpParams, now: number): number {
  const autostart = params.nextAutostart?.getTime();
  if (autostart !== undefined && autostart > now && now + params.bumpMs > autostart) {
    // As if the workspace had been autostarted then: the full TTL counts from the autostart.
    return autostart - now + (params.ttlMs ?? 0);
  }
  return params.bumpMs;
}

/**
 * Checks a workspace `ttl_ms` and returns what is stored: null (autostop off) for null or 0,
 * else the value truncated to whole minutes.
 * @throws ScheduleError `time until shutdown must be at least one minute` /
 *   `time until shutdown must be less than 30 days`.
 */
export function validateTtlMs(ttlMs: number | null | undefined): number | null {
  if (ttlMs === null || ttlMs === undefined || ttlMs === 0) return null;
  const truncated = Math.trunc(ttlMs / MINUTE_MS) * MINUTE_MS;
  if (!(truncated >= MIN_TTL_MS)) throw new ScheduleError('time until shutdown must be at least one minute');
  if (truncated > MAX_TTL_MS) throw new ScheduleError('time until shutdown must be less than 30 days');
  return truncated;
}
