import { dayDate, formatInOffset, type ReportInterval, type ReportRange } from '../../domain/insights.js';
import type { SessionKind } from '../../domain/usage-minutes.js';
import type { AuthorizedStore } from '../../store/authorized-store.js';
import { parseJson } from '../../store/json-column.js';
import type {
  DausResponse,
  TemplateAppUsage,
  TemplateInsightsResponse,
  TemplateParameterUsage,
  RichParameter,
  UserActivityInsightsResponse,
  UserLatencyInsightsResponse,
} from '../../sdk/wire/index.js';

type TemplateInsightsData = Awaited<ReturnType<AuthorizedStore['insights']['templates']>>;
type UserActivityData = Awaited<ReturnType<AuthorizedStore['insights']['userActivity']>>;
type UserLatencyData = Awaited<ReturnType<AuthorizedStore['insights']['userLatency']>>;

/** The ways to use any workspace, always listed in template insights even when unused (reference §12.4). */
const BUILTIN_APPS: readonly { readonly kind: SessionKind; readonly slug: string; readonly display_name: string; readonly icon: string }[] =
  [
    { kind: 'vscode', slug: 'vscode', display_name: 'Visual Studio Code', icon: '/icon/code.svg' },
    { kind: 'jetbrains', slug: 'jetbrains', display_name: 'JetBrains', icon: '/icon/intellij.svg' },
    { kind: 'reconnecting_pty', slug: 'reconnecting-pty', display_name: 'Web Terminal', icon: '/icon/terminal.svg' },
    { kind: 'ssh', slug: 'ssh', display_name: 'SSH', icon: '/icon/terminal.svg' },
    { kind: 'sftp', slug: 'sftp', display_name: 'SFTP', icon: '/icon/terminal.svg' },
  ];

/** Days with users, dated in the asked offset. */
export function toWireDaus(rows: readonly { day: number; amount: number }[], tzHourOffset: number): DausResponse {
  return { entries: rows.map((row) => ({ date: dayDate(row.day), amount: row.amount })), tz_hour_offset: tzHourOffset };
}

/**
 * A template insights report: every interval (0 users where nobody came), the built-in ways of
 * use always, then the templates' apps, and parameter values by parameter of the active versions.
 */
export function toWireTemplateInsights(
  data: TemplateInsightsData,
  range: ReportRange,
  intervals: readonly ReportInterval[],
  interval: 'day' | 'week',
  askedTemplateIds: readonly string[],
): TemplateInsightsResponse {
  const templateIds = askedTemplateIds.length > 0 ? [...askedTemplateIds] : data.total.templateIds;
  const at = (date: Date) => formatInOffset(date, range.offsetMinutes);
  const builtins: TemplateAppUsage[] = BUILTIN_APPS.map((app) => {
    const rows = data.sessions.filter((row) => row.kind === app.kind);
    return {
      template_ids: [...new Set(rows.map((row) => row.templateId))].sort(),
      type: 'builtin',
      display_name: app.display_name,
      slug: app.slug,
      icon: app.icon,
      seconds: rows.reduce((sum, row) => sum + row.minutes, 0) * 60,
      times_used: 0,
    };
  });
  const apps: TemplateAppUsage[] = data.apps.map((app) => ({
    template_ids: app.templateIds,
    type: 'app',
    display_name: app.displayName,
    slug: app.slug,
    icon: app.icon,
    seconds: app.minutes * 60,
    times_used: app.runs,
  }));
  return {
    report: {
      start_time: at(range.start),
      end_time: at(range.end),
      template_ids: templateIds,
      active_users: data.total.users,
      apps_usage: [...builtins, ...apps],
      parameters_usage: parameterUsage(data),
    },
    interval_reports: intervals.map((span, index) => ({
      start_time: at(span.start),
      end_time: at(span.end),
      template_ids: templateIds,
      interval,
      active_users: data.intervals.find((row) => row.index === index)?.users ?? 0,
    })),
  };
}

/** Parameters of the active versions (ephemeral ones left out), alike ones merged across templates, with the values workspaces use. */
function parameterUsage(data: TemplateInsightsData): TemplateParameterUsage[] {
  const byKey = new Map<string, TemplateParameterUsage>();
  for (const { templateId, parameters } of data.parameterDefinitions) {
    for (const parameter of parseJson<RichParameter[]>(parameters, [])) {
      if (parameter.ephemeral) continue;
      const options = (parameter.options ?? []).map((o) => ({ name: o.name, description: o.description, value: o.value, icon: o.icon }));
      const key = JSON.stringify([parameter.name, parameter.type, parameter.display_name, parameter.description, options]);
      const usage = byKey.get(key) ?? {
        template_ids: [],
        display_name: parameter.display_name,
        name: parameter.name,
        type: parameter.type,
        description: parameter.description,
        options,
        values: [],
      };
      usage.template_ids.push(templateId);
      for (const row of data.parameterValues) {
        if (row.templateId !== templateId || row.name !== parameter.name) continue;
        const existing = usage.values.find((value) => value.value === row.value);
        if (existing) existing.count += row.count;
        else usage.values.push({ value: row.value, count: row.count });
      }
      byKey.set(key, usage);
    }
  }
  return [...byKey.values()]
    .map((usage) => ({
      ...usage,
      template_ids: usage.template_ids.sort(),
      values: usage.values.sort((a, b) => a.value.localeCompare(b.value)),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Each user's time of use in seconds. */
export function toWireUserActivity(
  data: UserActivityData,
  range: ReportRange,
  askedTemplateIds: readonly string[],
): UserActivityInsightsResponse {
  return {
    report: {
      start_time: formatInOffset(range.start, range.offsetMinutes),
      end_time: formatInOffset(range.end, range.offsetMinutes),
      template_ids: reportTemplateIds(data, askedTemplateIds),
      users: data.map((user) => ({
        user_id: user.userId,
        username: user.username,
        avatar_url: user.avatarUrl,
        template_ids: user.templateIds,
        seconds: user.minutes * 60,
      })),
    },
  };
}

/** Each user's latency percentiles; -1 where none was reported, as the reference. */
export function toWireUserLatency(
  data: UserLatencyData,
  range: ReportRange,
  askedTemplateIds: readonly string[],
): UserLatencyInsightsResponse {
  return {
    report: {
      start_time: formatInOffset(range.start, range.offsetMinutes),
      end_time: formatInOffset(range.end, range.offsetMinutes),
      template_ids: reportTemplateIds(data, askedTemplateIds),
      users: data.map((user) => ({
        user_id: user.userId,
        username: user.username,
        avatar_url: user.avatarUrl,
        template_ids: user.templateIds,
        latency_ms: { p50: user.p50 ?? -1, p95: user.p95 ?? -1 },
      })),
    },
  };
}

/** The templates a user report covers: those asked for, else those its users used. */
function reportTemplateIds(users: readonly { templateIds: readonly string[] }[], asked: readonly string[]): string[] {
  if (asked.length > 0) return [...asked];
  return [...new Set(users.flatMap((user) => user.templateIds))].sort();
}

/** Users by status at each midnight; a status nobody had is 0, and every status has every day. */
export function toWireStatusCounts(
  rows: readonly { instant: string; status: string; count: number }[],
  midnights: readonly Date[],
  offsetMinutes: number,
): { status_counts: Record<string, { date: string; count: number }[]> } {
  const statuses = ['active', 'dormant', 'suspended'] as const;
  return {
    status_counts: Object.fromEntries(
      statuses.map((status) => [
        status,
        midnights.map((midnight) => ({
          date: formatInOffset(midnight, offsetMinutes),
          count: rows.find((row) => row.status === status && row.instant === midnight.toISOString())?.count ?? 0,
        })),
      ]),
    ),
  };
}
