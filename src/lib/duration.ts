const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  // A year of 365 days, as the reference's CLI reads `--lifetime 1y`.
  y: 365 * 86_400_000,
};

/**
 * What a bare number such as `30` means: milliseconds, as the server's options have always read
 * one (a deployment's settings keep their meaning), or nothing, where a person types a duration
 * on the command line: there `--lifetime 30` read as 30 ms made a token that had already expired,
 * and the reference's CLI refuses a number without a unit too ("missing unit in duration").
 */
export type BareNumber = 'milliseconds' | 'refused';

/**
 * Parses a duration such as `24h`, `1h30m`, `168h0m0s`, `90s`, or a bare number (see BareNumber;
 * `0` is always zero). Returns milliseconds, or undefined when the text is not a duration.
 */
export function parseDuration(text: string, bareNumber: BareNumber = 'milliseconds'): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (/^\d+$/.test(trimmed)) return bareNumber === 'milliseconds' || Number(trimmed) === 0 ? Number(trimmed) : undefined;
  const part = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d|y)/gy;
  let total = 0;
  let consumed = 0;
  for (let match = part.exec(trimmed); match; match = part.exec(trimmed)) {
    total += Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? Number.NaN);
    consumed = part.lastIndex;
  }
  if (consumed !== trimmed.length || Number.isNaN(total)) return undefined;
  return total;
}

/**
 * Why a duration written without a unit (`30`, `1.5`) is not one where a unit is required, in
 * words that say what to write instead; undefined when the text is not a bare number, or is zero.
 */
export function missingUnit(text: string): string | undefined {
  const trimmed = text.trim();
  if (!/^\d+(\.\d+)?$/.test(trimmed) || Number(trimmed) === 0) return undefined;
  return `${trimmed} has no unit; write ${trimmed}s, ${trimmed}m, ${trimmed}h or ${trimmed}d`;
}

/** Formats milliseconds the way parseDuration reads them back, e.g. `168h0m0s`. */
export function formatDuration(ms: number): string {
  if (ms % 1000 !== 0) return `${ms}ms`;
  const seconds = ms / 1000;
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return `${h}h${m}m${s}s`;
}

/** Milliseconds to the integer nanoseconds the wire uses for durations. */
export function msToNs(ms: number): number {
  return ms * 1_000_000;
}

/** Integer nanoseconds from the wire to milliseconds. */
export function nsToMs(ns: number): number {
  return ns / 1_000_000;
}

/** The longest duration a setting may hold: ten years, far past any schedule yet inside a date's range. */
export const MAX_DURATION_MS = 10 * 365 * 86_400_000;

/** The latest instant a JavaScript date can hold. */
const LATEST_TIME_MS = 8.64e15;

/**
 * `at` plus `ms`, held inside the range a date can represent, so that no stored duration, however
 * it got there, makes deadline arithmetic throw.
 */
export function addMs(at: Date, ms: number): Date {
  const sum = at.getTime() + ms;
  if (Number.isNaN(sum)) return new Date(at.getTime());
  return new Date(Math.max(-LATEST_TIME_MS, Math.min(LATEST_TIME_MS, sum)));
}
