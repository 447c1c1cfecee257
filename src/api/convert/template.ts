import { settingsNotInEffect } from '../../domain/advanced-scheduling.js';
import type { EnabledFeatures } from '../../lib/enabled-features.js';
import { bitmapToWeekdays } from '../../domain/templates.js';
import type { Template } from '../../sdk/wire/index.js';
import type { TemplateRelations, TemplateRow } from '../../store/rows.js';

type BuildTimes = Template['build_time_stats'];

function emptyBuildTimes(): BuildTimes {
  return { start: { P50: null, P95: null }, stop: { P50: null, P95: null }, delete: { P50: null, P95: null } };
}

/** The lowest value at or above the given fraction of sorted values, as percentile_disc picks it. */
function percentile(sorted: readonly number[], fraction: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] ?? null;
}

/** p50/p95 per transition of the build durations of one template. */
function buildTimes(durations: ReadonlyMap<string, readonly number[]> | undefined): BuildTimes {
  const stats = emptyBuildTimes();
  for (const transition of ['start', 'stop', 'delete'] as const) {
    const sorted = [...(durations?.get(transition) ?? [])].sort((a, b) => a - b);
    stats[transition] = { P50: percentile(sorted, 0.5), P95: percentile(sorted, 0.95) };
  }
  return stats;
}

/** A template as the API shows it, with its organization, creator, users and build times. */
export function toWireTemplate(row: TemplateRow, related: TemplateRelations, features: EnabledFeatures): Template {
  const org = related.organizations.get(row.organization_id);
  return {
    id: row.id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    organization_id: row.organization_id,
    organization_name: org?.name ?? '',
    organization_display_name: org?.display_name ?? '',
    organization_icon: org?.icon ?? '',
    name: row.name,
    display_name: row.display_name,
    description: row.description,
    icon: row.icon,
    provisioner: row.provisioner,
    active_version_id: row.active_version_id,
    active_user_count: related.activeUsers.get(row.id) ?? 0,
    build_time_stats: buildTimes(related.buildDurations.get(row.id)),
    default_ttl_ms: row.default_ttl_ms,
    activity_bump_ms: row.activity_bump_ms,
    autostop_requirement: {
      days_of_week: bitmapToWeekdays(row.autostop_requirement_days),
      weeks: Math.max(1, row.autostop_requirement_weeks),
    },
    autostart_requirement: { days_of_week: bitmapToWeekdays(row.autostart_requirement_days) },
    allow_user_autostart: row.allow_user_autostart === 1,
    allow_user_autostop: row.allow_user_autostop === 1,
    allow_user_cancel_workspace_jobs: row.allow_user_cancel_workspace_jobs === 1,
    failure_ttl_ms: row.failure_ttl_ms,
    time_til_dormant_ms: row.time_til_dormant_ms,
    time_til_dormant_autodelete_ms: row.time_til_dormant_autodelete_ms,
    settings_not_in_effect: settingsNotInEffect(row, features),
    require_active_version: row.require_active_version === 1,
    deprecated: row.deprecation_message !== '',
    deprecation_message: row.deprecation_message,
    max_port_share_level: row.max_port_share_level as Template['max_port_share_level'],
    use_classic_parameter_flow: row.use_classic_parameter_flow === 1,
    created_by_id: row.created_by,
    created_by_name: related.creatorNames.get(row.created_by) ?? '',
  };
}
