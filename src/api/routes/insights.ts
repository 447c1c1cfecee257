import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { checkTzOffset, intervalMinutes, parseReportRange, parseTemplateIds, recentDays, reportIntervals } from '../../domain/insights.js';
import {
  DausResponse,
  InsightsInterval,
  TemplateInsightsResponse,
  UserActivityInsightsResponse,
  UserLatencyInsightsResponse,
  UserStatusCountsResponse,
} from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { toWireDaus, toWireStatusCounts, toWireTemplateInsights, toWireUserActivity, toWireUserLatency } from '../convert/insights.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { HttpProblem } from '../../lib/errors.js';
import { forbidden } from '../problems.js';

// Unknown query parameters are refused, as the reference's parser does.
const TzOffsetQuery = Type.Object({ tz_offset: Type.Integer() }, { additionalProperties: false });
/**
 * The user status counts take the client's zone by name (`timezone`, current clients) or as whole
 * hours (`tz_offset`, older ones); the name wins when both come.
 */
const StatusCountsQuery = Type.Object(
  { tz_offset: Type.Optional(Type.Integer()), timezone: Type.Optional(Type.String()) },
  { additionalProperties: false },
);
const RangeQuery = {
  start_time: Type.String(),
  end_time: Type.String(),
  /** Repeated, or one comma-separated value. */
  template_ids: Type.Optional(Type.Array(Type.String())),
};
const UserReportQuery = Type.Object(RangeQuery, { additionalProperties: false });
const TemplateReportQuery = Type.Object({ ...RangeQuery, interval: InsightsInterval }, { additionalProperties: false });

/**
 * A named zone's offset from UTC now, in hours (fractional for zones such as Asia/Kolkata): the
 * 60 days the counts cover are cut at its midnights as they fall today.
 */
function zoneOffsetHours(zone: string, at: Date): number {
  let name: string | undefined;
  try {
    const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }).formatToParts(at);
    name = parts.find((part) => part.type === 'timeZoneName')?.value;
  } catch {
    name = undefined;
  }
  const match = name === undefined ? null : /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(name);
  if (!match) {
    throw new HttpProblem(400, 'Query parameter has invalid value.', {
      validations: [{ field: 'timezone', detail: `Query param "timezone" must be a valid time zone name, not "${zone}"` }],
    });
  }
  if (match[1] === undefined) return 0;
  return (match[1] === '-' ? -1 : 1) * (Number(match[2]) + Number(match[3]) / 60);
}

/** `/insights/*`: usage of the deployment and its templates, computed from the recorded minutes of use. */
export async function insightsRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const now = () => context.store.clock.now();

  api.get('/insights/daus', { schema: { querystring: TzOffsetQuery, response: { 200: DausResponse } } }, async (request) => {
    const { store } = authOf(request);
    if (!store.can('read', { type: 'deployment_config' })) throw forbidden();
    const offset = checkTzOffset(request.query.tz_offset);
    const window = recentDays(now(), offset);
    return toWireDaus(await store.insights.dailyActiveUsers(window, offset * 60), offset);
  });

  api.get(
    '/insights/templates',
    { schema: { querystring: TemplateReportQuery, response: { 200: TemplateInsightsResponse } } },
    async (request) => {
      const { store } = authOf(request);
      const { query } = request;
      const range = parseReportRange(query.start_time, query.end_time, now());
      const intervals = reportIntervals(range, query.interval);
      const templateIds = parseTemplateIds(query.template_ids);
      const data = await store.insights.templates(templateIds, {
        from: range.from,
        to: range.to,
        fromIso: range.start.toISOString(),
        toIso: range.end.toISOString(),
        intervalMinutes: intervalMinutes(query.interval),
      });
      return toWireTemplateInsights(data, range, intervals, query.interval, templateIds);
    },
  );

  api.get(
    '/insights/user-activity',
    { schema: { querystring: UserReportQuery, response: { 200: UserActivityInsightsResponse } } },
    async (request) => {
      const { query } = request;
      const range = parseReportRange(query.start_time, query.end_time, now());
      const templateIds = parseTemplateIds(query.template_ids);
      const data = await authOf(request).store.insights.userActivity(templateIds, range);
      return toWireUserActivity(data, range, templateIds);
    },
  );

  api.get(
    '/insights/user-latency',
    { schema: { querystring: UserReportQuery, response: { 200: UserLatencyInsightsResponse } } },
    async (request) => {
      const { query } = request;
      const range = parseReportRange(query.start_time, query.end_time, now());
      const templateIds = parseTemplateIds(query.template_ids);
      const data = await authOf(request).store.insights.userLatency(templateIds, range);
      return toWireUserLatency(data, range, templateIds);
    },
  );

  api.get(
    '/insights/user-status-counts',
    { schema: { querystring: StatusCountsQuery, response: { 200: UserStatusCountsResponse } } },
    async (request) => {
      const { store } = authOf(request);
      if (!store.can('read', { type: 'user' })) throw forbidden();
      const { timezone, tz_offset } = request.query;
      const offset = timezone === undefined ? checkTzOffset(tz_offset ?? Number.NaN) : zoneOffsetHours(timezone, now());
      const { midnights } = recentDays(now(), offset);
      const rows = await store.insights.userStatusCounts(midnights.map((midnight) => midnight.toISOString()));
      return toWireStatusCounts(rows, midnights, offset * 60);
    },
  );
}
