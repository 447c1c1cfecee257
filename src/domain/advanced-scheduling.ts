import type { EnabledFeatures } from '../lib/enabled-features.js';
import type { TemplateRow } from '../store/rows.js';

/** The licensed feature that lets a template's advanced schedule settings act (spec: Template rules). */
export const ADVANCED_TEMPLATE_SCHEDULING = 'advanced_template_scheduling';

type ScheduleFields =
  | 'allow_user_autostart'
  | 'allow_user_autostop'
  | 'autostart_requirement_days'
  | 'autostop_requirement_days'
  | 'autostop_requirement_weeks'
  | 'failure_ttl_ms'
  | 'time_til_dormant_ms'
  | 'time_til_dormant_autodelete_ms';

/** What the advanced settings act as without the feature: as a new template's defaults. */
const WITHOUT_FEATURE: Readonly<Pick<TemplateRow, ScheduleFields>> = {
  allow_user_autostart: 1,
  allow_user_autostop: 1,
  autostart_requirement_days: 127,
  autostop_requirement_days: 0,
  autostop_requirement_weeks: 0,
  failure_ttl_ms: 0,
  time_til_dormant_ms: 0,
  time_til_dormant_autodelete_ms: 0,
};

/**
 * The template as its schedule acts: as stored when the deployment is entitled to advanced
 * template scheduling, else with those settings at their defaults. The stored values are kept
 * (and shown); only what they do depends on the license.
 */
export function scheduleInEffect<T extends Pick<TemplateRow, ScheduleFields>>(template: T, features: EnabledFeatures): T {
  return features.has(ADVANCED_TEMPLATE_SCHEDULING) ? template : { ...template, ...WITHOUT_FEATURE };
}

/** The template answer's fields each stored setting shows in. */
const WIRE_FIELDS: Readonly<Record<ScheduleFields, string>> = {
  allow_user_autostart: 'allow_user_autostart',
  allow_user_autostop: 'allow_user_autostop',
  autostart_requirement_days: 'autostart_requirement',
  autostop_requirement_days: 'autostop_requirement',
  autostop_requirement_weeks: 'autostop_requirement',
  failure_ttl_ms: 'failure_ttl_ms',
  time_til_dormant_ms: 'time_til_dormant_ms',
  time_til_dormant_autodelete_ms: 'time_til_dormant_autodelete_ms',
};

/**
 * The template answer's fields whose stored setting does not act, because the deployment is not
 * entitled to advanced template scheduling; none when it is, or when they are at their defaults.
 */
export function settingsNotInEffect(template: Pick<TemplateRow, ScheduleFields>, features: EnabledFeatures): string[] {
  if (features.has(ADVANCED_TEMPLATE_SCHEDULING)) return [];
  // The weeks between required restarts act only through the days they apply to.
  const fields = (Object.keys(WITHOUT_FEATURE) as ScheduleFields[]).filter(
    (field) => field !== 'autostop_requirement_weeks' && template[field] !== WITHOUT_FEATURE[field],
  );
  return [...new Set(fields.map((field) => WIRE_FIELDS[field]))];
}
