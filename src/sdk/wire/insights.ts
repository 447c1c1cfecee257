import { Type, type Static } from '@sinclair/typebox';

/** `GET /insights/daus` (and a template's DAUs): distinct users per day, dates in the asked offset. */
export const DauEntry = Type.Object({ date: Type.String(), amount: Type.Integer() });
export const DausResponse = Type.Object({ entries: Type.Array(DauEntry), tz_hour_offset: Type.Integer() });
export type DausResponse = Static<typeof DausResponse>;

export const InsightsInterval = Type.Union([Type.Literal('day'), Type.Literal('week')]);
export type InsightsInterval = Static<typeof InsightsInterval>;

export const TemplateInsightsIntervalReport = Type.Object({
  start_time: Type.String({ format: 'date-time' }),
  end_time: Type.String({ format: 'date-time' }),
  template_ids: Type.Array(Type.String()),
  interval: InsightsInterval,
  active_users: Type.Integer(),
});
export type TemplateInsightsIntervalReport = Static<typeof TemplateInsightsIntervalReport>;

export const TemplateAppUsage = Type.Object({
  template_ids: Type.Array(Type.String()),
  /** `builtin` for the ways every workspace can be used, `app` for a template's apps. */
  type: Type.String(),
  display_name: Type.String(),
  slug: Type.String(),
  icon: Type.String(),
  seconds: Type.Integer(),
  times_used: Type.Integer(),
});
export type TemplateAppUsage = Static<typeof TemplateAppUsage>;

export const TemplateParameterOption = Type.Object({
  name: Type.String(),
  description: Type.String(),
  value: Type.String(),
  icon: Type.String(),
});

export const TemplateParameterUsage = Type.Object({
  template_ids: Type.Array(Type.String()),
  display_name: Type.String(),
  name: Type.String(),
  type: Type.String(),
  description: Type.String(),
  options: Type.Array(TemplateParameterOption),
  values: Type.Array(Type.Object({ value: Type.String(), count: Type.Integer() })),
});
export type TemplateParameterUsage = Static<typeof TemplateParameterUsage>;

export const TemplateInsightsReport = Type.Object({
  start_time: Type.String({ format: 'date-time' }),
  end_time: Type.String({ format: 'date-time' }),
  template_ids: Type.Array(Type.String()),
  active_users: Type.Integer(),
  apps_usage: Type.Array(TemplateAppUsage),
  parameters_usage: Type.Array(TemplateParameterUsage),
});

export const TemplateInsightsResponse = Type.Object({
  report: TemplateInsightsReport,
  interval_reports: Type.Array(TemplateInsightsIntervalReport),
});
export type TemplateInsightsResponse = Static<typeof TemplateInsightsResponse>;

const UserInsightFields = {
  user_id: Type.String(),
  username: Type.String(),
  avatar_url: Type.String(),
  template_ids: Type.Array(Type.String()),
};

export const UserActivity = Type.Object({ ...UserInsightFields, seconds: Type.Integer() });
export type UserActivity = Static<typeof UserActivity>;

export const UserActivityInsightsResponse = Type.Object({
  report: Type.Object({
    start_time: Type.String({ format: 'date-time' }),
    end_time: Type.String({ format: 'date-time' }),
    template_ids: Type.Array(Type.String()),
    users: Type.Array(UserActivity),
  }),
});
export type UserActivityInsightsResponse = Static<typeof UserActivityInsightsResponse>;

export const UserLatency = Type.Object({ ...UserInsightFields, latency_ms: Type.Object({ p50: Type.Number(), p95: Type.Number() }) });
export type UserLatency = Static<typeof UserLatency>;

export const UserLatencyInsightsResponse = Type.Object({
  report: Type.Object({
    start_time: Type.String({ format: 'date-time' }),
    end_time: Type.String({ format: 'date-time' }),
    template_ids: Type.Array(Type.String()),
    users: Type.Array(UserLatency),
  }),
});
export type UserLatencyInsightsResponse = Static<typeof UserLatencyInsightsResponse>;

export const UserStatusCount = Type.Object({ date: Type.String({ format: 'date-time' }), count: Type.Integer() });
export const UserStatusCountsResponse = Type.Object({ status_counts: Type.Record(Type.String(), Type.Array(UserStatusCount)) });
export type UserStatusCountsResponse = Static<typeof UserStatusCountsResponse>;
