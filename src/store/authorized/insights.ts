import { StoreFamily, type StoreScope } from './store-family.js';
import type { TemplateStore } from './templates.js';
import { templateRbac, workspaceRbac } from '../rbac-objects.js';
import { allowedRows } from '../authz-filter.js';
import { listFilter, siteObject } from '../../rbac/index.js';
import { NotAuthorizedError } from '../../lib/errors.js';
import * as insights from '../queries/insights.js';
import * as templates from '../queries/templates.js';
import * as workspaces from '../queries/workspaces.js';

/** Usage recording and insights. */
export class InsightStore extends StoreFamily {
  /** The store's templates family, for the reads of theirs a method here needs. */
  readonly #templateStore: TemplateStore;

  constructor(scope: StoreScope, templateStore: TemplateStore) {
    super(scope);
    this.#templateStore = templateStore;
  }

  /**
   * Records minutes of use of a workspace, as its owner's use of its template. Needs `update` on
   * the workspace: use moves it (its last use and deadline) in the same way.
   */
  async recordUsageMinutes(
    workspace: workspaces.WorkspaceRow,
    minutes: readonly Omit<insights.UsageMinute, 'user_id' | 'template_id'>[],
  ): Promise<void> {
    this.require('update', workspaceRbac(workspace));
    await insights.recordUsageMinutes(
      this.db,
      minutes.map((minute) => ({ ...minute, user_id: workspace.owner_id, template_id: workspace.template_id })),
    );
  }

  /**
   * Distinct users per day over every template, days counted in the offset given (minutes east of
   * UTC). Deployment-wide numbers: needs `read` on the deployment config, as the reference.
   */
  async dailyActiveUsers(
    range: { readonly from: number; readonly to: number },
    offsetMinutes: number,
  ): Promise<{ day: number; amount: number }[]> {
    this.require('read', siteObject('deployment_config'));
    return insights.dailyActiveUsers(this.db, { ...range, templateIds: 'all' }, offsetMinutes);
  }

  /**
   * Distinct users per day of one template's workspaces, days counted in the offset given (minutes
   * east of UTC). Anyone who may read the template may read its numbers.
   */
  async templateDailyActiveUsers(
    template: templates.TemplateRow,
    range: { readonly from: number; readonly to: number },
    offsetMinutes: number,
  ): Promise<{ day: number; amount: number }[]> {
    this.require('read', templateRbac(template));
    return insights.dailyActiveUsers(this.db, { ...range, templateIds: [template.id] }, offsetMinutes);
  }

  /**
   * The templates whose insights a report covers: those asked for, each of which must be readable
   * (else 404) and allow `view_insights` (else 403); or, when none are asked for, every template
   * the subject may view insights of, and a 403 when there is none.
   */
  async #insightTemplateIds(templateIds: readonly string[]): Promise<string[]> {
    if (templateIds.length > 0) {
      const rows = await Promise.all(templateIds.map((id) => this.#templateStore.get(id)));
      for (const row of rows) this.require('view_insights', templateRbac(row));
      return rows.map((row) => row.id);
    }
    const allowed = listFilter(this.subject, 'view_insights', 'template');
    if (!allowed.all && allowed.orgIds.length === 0) throw new NotAuthorizedError('view_insights', 'template');
    const rows = await this.db
      .selectFrom('templates')
      .select('id')
      .where((eb) => allowedRows(eb, allowed, { org: 'templates.organization_id', owner: null }))
      .orderBy('id')
      .execute();
    return rows.map((row) => row.id);
  }

  /**
   * What a template insights report shows, for the templates `#insightTemplateIds` allows: users
   * per interval and overall, session and app use, and parameter values of workspaces built in
   * the range (`fromIso`/`toIso` bound the same range as `from`/`to` minutes).
   */
  async templates(
    templateIds: readonly string[],
    range: {
      readonly from: number;
      readonly to: number;
      readonly fromIso: string;
      readonly toIso: string;
      readonly intervalMinutes: number;
    },
  ) {
    const ids = await this.#insightTemplateIds(templateIds);
    const scope: insights.UsageScope = { from: range.from, to: range.to, templateIds: ids };
    const db = this.db;
    const [intervals, total, sessions, apps, parameterValues, parameterDefinitions] = await Promise.all([
      insights.activeUsersByInterval(db, scope, range.intervalMinutes),
      insights.activeUsersInRange(db, scope),
      insights.sessionMinutes(db, scope),
      insights.appUsage(db, scope),
      insights.parameterValueCounts(db, this.store.dialect, { from: range.fromIso, to: range.toIso, templateIds: ids }),
      insights.activeVersionParameters(db, ids),
    ]);
    return { templateIds: ids, intervals, total, sessions, apps, parameterValues, parameterDefinitions };
  }

  /** Each user's time of use in the range, over the templates `#insightTemplateIds` allows. */
  async userActivity(templateIds: readonly string[], range: { readonly from: number; readonly to: number }) {
    const ids = await this.#insightTemplateIds(templateIds);
    return insights.userActivity(this.db, { ...range, templateIds: ids });
  }

  /** Each user's connection latency percentiles in the range, over the templates `#insightTemplateIds` allows. */
  async userLatency(templateIds: readonly string[], range: { readonly from: number; readonly to: number }) {
    const ids = await this.#insightTemplateIds(templateIds);
    return insights.userLatency(this.db, { ...range, templateIds: ids });
  }

  /** How many users had each status at each instant (ISO 8601); needs `read` on every user. */
  async userStatusCounts(instants: readonly string[]): Promise<{ instant: string; status: string; count: number }[]> {
    this.require('read', siteObject('user'));
    return insights.userStatusCounts(this.db, instants);
  }
}
