import { ApiError } from '../../sdk/api-error.js';
import type { CoveClient } from '../../sdk/client.js';
import type { Template } from '../../sdk/wire/index.js';

/** The licensed feature without which a template's advanced schedule settings are kept but do nothing. */
const ADVANCED_TEMPLATE_SCHEDULING = 'advanced_template_scheduling';

/** What follows the value of an advanced schedule setting the deployment is not entitled to. */
export const NOT_IN_EFFECT = 'stored; not in effect: needs a license with advanced template scheduling';

/**
 * The template fields that act only under a license with advanced template scheduling (spec:
 * Template rules), each with the value it acts as without one. The CLI shows a stored value that
 * differs from it as not in effect.
 */
export const ADVANCED_SCHEDULE_DEFAULTS = {
  failure_ttl_ms: 0,
  time_til_dormant_ms: 0,
  time_til_dormant_autodelete_ms: 0,
  allow_user_autostart: true,
  allow_user_autostop: true,
} as const;

export type AdvancedScheduleField = keyof typeof ADVANCED_SCHEDULE_DEFAULTS;

/** The advanced schedule settings of `template` that would change what it does, were they in effect. */
export function advancedSettingsSet(template: Pick<Template, AdvancedScheduleField>): AdvancedScheduleField[] {
  return (Object.keys(ADVANCED_SCHEDULE_DEFAULTS) as AdvancedScheduleField[]).filter(
    (field) => template[field] !== ADVANCED_SCHEDULE_DEFAULTS[field],
  );
}

/**
 * Whether the deployment's entitlements let templates' advanced schedule settings act, as the
 * daemon decides it (entitled or in the grace period, and enabled). Undefined when the
 * entitlements cannot be read: then nothing is claimed either way.
 */
export async function advancedSchedulingInEffect(client: CoveClient): Promise<boolean | undefined> {
  try {
    const state = (await client.entitlements()).features[ADVANCED_TEMPLATE_SCHEDULING];
    return state !== undefined && state.enabled && state.entitlement !== 'not_entitled';
  } catch (error) {
    if (error instanceof ApiError) return undefined;
    throw error;
  }
}
