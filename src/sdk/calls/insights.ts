import { ClientCore } from '../client-core.js';
import type {
  DausResponse,
  TemplateInsightsResponse,
  UserActivityInsightsResponse,
  UserLatencyInsightsResponse,
  UserStatusCountsResponse,
} from '../wire/index.js';

/** The range of an insights report: RFC 3339 times with the client's offset; template ids comma-separated. */
export type InsightsRange = {
  readonly start_time: string;
  readonly end_time: string;
  readonly template_ids?: string;
};

/**
 * Usage reports: daily users, template, activity and latency insights.
 * Abstract: its methods run on a CoveClient, which installs them on its prototype (src/sdk/client.ts).
 */
export abstract class InsightsCalls extends ClientCore {
  /** Distinct users of one template's workspaces per day, for the last 60 days (UTC days without an offset). */
  templateDaus(templateId: string, tzOffset?: number): Promise<DausResponse> {
    return this.request('GET', `/templates/${encodeURIComponent(templateId)}/daus`, { query: { tz_offset: tzOffset } });
  }

  /** Distinct users per day over the last 60 days, dated in `tzOffset` hours east of UTC. */
  insightsDaus(tzOffset: number): Promise<DausResponse> {
    return this.request('GET', '/insights/daus', { query: { tz_offset: tzOffset } });
  }

  templateInsights(query: InsightsRange & { readonly interval: 'day' | 'week' }): Promise<TemplateInsightsResponse> {
    return this.request('GET', '/insights/templates', { query });
  }

  userActivityInsights(query: InsightsRange): Promise<UserActivityInsightsResponse> {
    return this.request('GET', '/insights/user-activity', { query });
  }

  userLatencyInsights(query: InsightsRange): Promise<UserLatencyInsightsResponse> {
    return this.request('GET', '/insights/user-latency', { query });
  }

  userStatusCounts(tzOffset: number): Promise<UserStatusCountsResponse> {
    return this.request('GET', '/insights/user-status-counts', { query: { tz_offset: tzOffset } });
  }
}
