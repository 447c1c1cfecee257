import { CronError, parseCron as parseCronText, type CronExpression, type CronLayout } from '../lib/cron.js';

/**
 * Cron schedules of agent scripts, as the reference reads them: a seconds field first, then
 * minute, hour, day of month, month and optionally day of week (`sec min hour dom month [dow]`),
 * in the agent's local time unless a `CRON_TZ=` prefix names a zone.
 */
export type CronSpec = CronExpression;

const SCRIPT_LAYOUT: CronLayout = { seconds: true, optionalWeekday: true, sundayAsSeven: true };

/** Parses a script's `cron`; throws an Error naming the field at fault. */
export function parseCron(text: string): CronSpec {
  try {
    return parseCronText(text, SCRIPT_LAYOUT);
  } catch (error) {
    if (!(error instanceof CronError)) throw error;
    throw new Error(scriptCronProblem(text, error));
  }
}

/** The agent's wording, which its script logs show. */
function scriptCronProblem(text: string, error: CronError): string {
  switch (error.problem) {
    case 'shape':
      return `cron "${text}" must have 5 or 6 fields: seconds, minutes, hours, day of month, month[, day of week]`;
    case 'range':
      return `cron "${text}": "${error.part}" is outside ${error.bounds.min}-${error.bounds.max}`;
    case 'step':
      return `cron "${text}": bad step in "${error.part}"`;
    default:
      return `cron "${text}": ${error.message}`;
  }
}

/** The first time strictly after `after` that the schedule names; undefined if none ever comes. */
export function nextCron(spec: CronSpec, after: Date): Date | undefined {
  return spec.next(after);
}
