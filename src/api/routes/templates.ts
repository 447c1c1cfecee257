import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { jobStatus } from '../../domain/provisioner-job-status.js';
import {
  bitmapToWeekdays,
  createTemplate,
  matchesTemplateSearch,
  parseTemplateSearch,
  updateTemplateMeta,
} from '../../domain/templates.js';
import { HttpProblem, isNotFoundOrHidden, NotFoundError } from '../../lib/errors.js';
import { CreateTemplateRequest, Response, Template, TemplateExample, TemplateVersion, UpdateTemplateMeta } from '../../sdk/wire/index.js';
import type { TemplateRow } from '../../store/queries/templates.js';
import type { ApiContext } from '../context.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { answerVersions } from './template-versions.js';

const OrgParam = Type.Object({ organization: Type.String({ minLength: 1 }) });
const TemplateParam = Type.Object({ template: Type.String({ format: 'uuid' }) });
const SearchQuery = Type.Object({ q: Type.Optional(Type.String()) });

/** Templates as the API shows them, with their organization and creator. */
async function answerTemplates(context: ApiContext, rows: readonly TemplateRow[]): Promise<Template[]> {
  if (rows.length === 0) return [];
  const db = context.store.db;
  const orgs = new Map(
    (
      await db
        .selectFrom('organizations')
        .selectAll()
        .where('id', 'in', [...new Set(rows.map((r) => r.organization_id))])
        .execute()
    ).map((o) => [o.id, o]),
  );
  const users = new Map(
    (
      await db
        .selectFrom('users')
        .select(['id', 'username'])
        .where('id', 'in', [...new Set(rows.map((r) => r.created_by))])
        .execute()
    ).map((u) => [u.id, u.username]),
  );
  const stats = await templateStats(
    context,
    rows.map((r) => r.id),
  );
  return rows.map((row) => {
    const org = orgs.get(row.organization_id);
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
      active_user_count: stats.users.get(row.id) ?? 0,
      build_time_stats: stats.times.get(row.id) ?? emptyBuildTimes(),
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
      require_active_version: row.require_active_version === 1,
      deprecated: row.deprecation_message !== '',
      deprecation_message: row.deprecation_message,
      max_port_share_level: row.max_port_share_level as Template['max_port_share_level'],
      use_classic_parameter_flow: row.use_classic_parameter_flow === 1,
      created_by_id: row.created_by,
      created_by_name: users.get(row.created_by) ?? '',
    };
  });
}

/**
 * Lowering a template's maximum share level takes effect on existing shares at once: to `owner`
 * no port stays shared, otherwise shares above the new maximum come down to it.
 */
async function narrowPortShares(context: ApiContext, before: TemplateRow, after: TemplateRow): Promise<void> {
  const order = ['owner', 'organization', 'authenticated', 'public'];
  const max = order.indexOf(after.max_port_share_level);
  if (max >= order.indexOf(before.max_port_share_level)) return;
  const workspaceIds = context.store.db.selectFrom('workspaces').select('id').where('template_id', '=', after.id);
  if (max === 0) {
    await context.store.db.deleteFrom('workspace_port_shares').where('workspace_id', 'in', workspaceIds).execute();
    return;
  }
  await context.store.db
    .updateTable('workspace_port_shares')
    .set({ share_level: after.max_port_share_level })
    .where('workspace_id', 'in', workspaceIds)
    .where('share_level', 'in', order.slice(max + 1))
    .execute();
}

type BuildTimes = Template['build_time_stats'];

function emptyBuildTimes(): BuildTimes {
  return { start: { p50: null, p95: null }, stop: { p50: null, p95: null }, delete: { p50: null, p95: null } };
}

/** The lowest value at or above the given fraction of sorted values, as percentile_disc picks it. */
function percentile(sorted: readonly number[], fraction: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] ?? null;
}

/**
 * Who uses each template (distinct owners of its live workspaces) and how long its builds took
 * (p50/p95 per transition of builds whose jobs started in the last 30 days and succeeded).
 */
async function templateStats(
  context: ApiContext,
  templateIds: readonly string[],
): Promise<{ users: Map<string, number>; times: Map<string, BuildTimes> }> {
  const db = context.store.db;
  const users = new Map<string, number>();
  const times = new Map<string, BuildTimes>();
  if (templateIds.length === 0) return { users, times };
  const owners = await db
    .selectFrom('workspaces')
    .select(['template_id', 'owner_id'])
    .where('template_id', 'in', templateIds)
    .where('deleted', '=', 0)
    .execute();
  for (const id of templateIds) users.set(id, new Set(owners.filter((o) => o.template_id === id).map((o) => o.owner_id)).size);
  const since = new Date(context.store.clock.now().getTime() - 30 * 24 * 3_600_000).toISOString();
  const builds = await db
    .selectFrom('workspace_builds as b')
    .innerJoin('workspaces as w', 'w.id', 'b.workspace_id')
    .innerJoin('provisioner_jobs as j', 'j.id', 'b.job_id')
    .select(['w.template_id as template_id', 'b.transition as transition', 'j.started_at as started_at', 'j.completed_at as completed_at'])
    .where('w.template_id', 'in', templateIds)
    .where('j.started_at', '>=', since)
    .where('j.completed_at', 'is not', null)
    .where('j.canceled_at', 'is', null)
    .where('j.error', '=', '')
    .execute();
  for (const id of templateIds) {
    const stats = emptyBuildTimes();
    for (const transition of ['start', 'stop', 'delete'] as const) {
      const durations = builds
        .filter((b) => b.template_id === id && b.transition === transition && b.started_at && b.completed_at)
        .map((b) => Date.parse(b.completed_at ?? '') - Date.parse(b.started_at ?? ''))
        .sort((a, b) => a - b);
      stats[transition] = { p50: percentile(durations, 0.5), p95: percentile(durations, 0.95) };
    }
    times.set(id, stats);
  }
  return { users, times };
}

/** Templates: create, read, search, update, delete, and their versions by name and order. */
export async function templateRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const orgOf = async (request: FastifyRequest) =>
    authOf(request).store.getOrganization((request.params as { organization: string }).organization);
  const templateOf = async (request: FastifyRequest) =>
    authOf(request).store.getTemplate((request.params as { template: string }).template);
  const templateByName = async (request: FastifyRequest) => {
    const organization = await orgOf(request);
    return authOf(request).store.getTemplateByName(organization.id, (request.params as { templatename: string }).templatename);
  };

  const search = async (request: FastifyRequest, organizationIds?: readonly string[]) => {
    const { store } = authOf(request);
    const query = parseTemplateSearch((request.query as { q?: string }).q);
    let orgIds = organizationIds;
    if (query.organization) {
      const org = await store.getOrganization(query.organization).catch(() => undefined);
      orgIds = org && (!orgIds || orgIds.includes(org.id)) ? [org.id] : [];
    }
    const rows = await store.listTemplates(orgIds);
    const search = query.author === 'me' ? { ...query, author: authOf(request).user.username.toLowerCase() } : query;
    // Authors are looked up only when the search names one.
    const creatorIds = [...new Set(rows.map((row) => row.created_by))];
    const authors = new Map(
      search.author && creatorIds.length > 0
        ? (await context.store.db.selectFrom('users').select(['id', 'username']).where('id', 'in', creatorIds).execute()).map((u) => [
            u.id,
            u.username,
          ])
        : [],
    );
    return answerTemplates(
      context,
      rows.filter((row) => matchesTemplateSearch(row, search, authors.get(row.created_by))),
    );
  };

  app.get('/templates', { schema: { querystring: SearchQuery, response: { 200: Type.Array(Template) } } }, async (request) =>
    search(request),
  );

  app.get(
    '/organizations/:organization/templates',
    { schema: { params: OrgParam, querystring: SearchQuery, response: { 200: Type.Array(Template) } } },
    async (request) => search(request, [(await orgOf(request)).id]),
  );

  app.post(
    '/organizations/:organization/templates',
    { schema: { params: OrgParam, body: CreateTemplateRequest, response: { 200: Template, 201: Template } } },
    async (request, reply) => {
      const organization = await orgOf(request);
      const row = await createTemplate(
        authOf(request).store,
        organization.id,
        request.body as CreateTemplateRequest,
        context.store.clock.now(),
      );
      const [answer] = await answerTemplates(context, [row]);
      return reply.code(200).send(answer);
    },
  );

  const examples = async (request: FastifyRequest) => {
    // Examples are for those who can make templates somewhere: reading any template is the bar.
    if (!authOf(request).store.can('read', { type: 'template', any_org: true })) throw new NotFoundError('examples');
    return context.templateExamples.list.map((example) => ({
      id: example.id,
      name: example.name,
      description: example.description,
      icon: example.icon,
      markdown: example.markdown,
      url: example.url,
      tags: [...example.tags],
    }));
  };
  app.get('/templates/examples', { schema: { response: { 200: Type.Array(TemplateExample) } } }, examples);
  app.get(
    '/organizations/:organization/templates/examples',
    { schema: { params: OrgParam, response: { 200: Type.Array(TemplateExample) } } },
    async (request) => {
      await orgOf(request);
      return examples(request);
    },
  );

  app.get(
    '/organizations/:organization/templates/:templatename',
    { schema: { params: Type.Object({ organization: Type.String(), templatename: Type.String() }), response: { 200: Template } } },
    async (request) => (await answerTemplates(context, [await templateByName(request)]))[0],
  );

  const VersionByNameParams = Type.Object({ organization: Type.String(), templatename: Type.String(), templateversionname: Type.String() });
  const versionsOf = async (request: FastifyRequest, template: TemplateRow) => authOf(request).store.listTemplateVersions(template);
  const namedVersion = async (request: FastifyRequest, template: TemplateRow) => {
    const name = (request.params as { templateversionname: string }).templateversionname;
    const all = await versionsOf(request, template);
    const index = all.findIndex((v) => v.version.name.toLowerCase() === name.toLowerCase());
    if (index < 0) throw new HttpProblem(404, `No template version found by name "${name}".`);
    return { all, index };
  };

  app.get(
    '/organizations/:organization/templates/:templatename/versions/:templateversionname',
    { schema: { params: VersionByNameParams, response: { 200: TemplateVersion } } },
    async (request) => {
      const { all, index } = await namedVersion(request, await templateByName(request));
      return (await answerVersions(context, [all[index]!], { withMatched: true }))[0];
    },
  );

  app.get(
    '/organizations/:organization/templates/:templatename/versions/:templateversionname/previous',
    { schema: { params: VersionByNameParams, response: { 200: TemplateVersion } } },
    async (request) => {
      const { all, index } = await namedVersion(request, await templateByName(request));
      const named = all[index]!;
      const previous = all.filter((v) => v.version.created_at < named.version.created_at).at(-1);
      if (!previous) throw new HttpProblem(404, `No previous template version found for "${named.version.name}".`);
      return (await answerVersions(context, [previous]))[0];
    },
  );

  app.get('/templates/:template', { schema: { params: TemplateParam, response: { 200: Template } } }, async (request) => {
    return (await answerTemplates(context, [await templateOf(request)]))[0];
  });

  app.patch(
    '/templates/:template',
    { schema: { params: TemplateParam, body: UpdateTemplateMeta, response: { 200: Template, 304: Type.Null() } } },
    async (request, reply) => {
      const template = await templateOf(request);
      const updated = await updateTemplateMeta(authOf(request).store, template, request.body as UpdateTemplateMeta);
      if (!updated) return reply.code(304).send();
      await narrowPortShares(context, template, updated);
      return (await answerTemplates(context, [updated]))[0];
    },
  );

  app.delete('/templates/:template', { schema: { params: TemplateParam, response: { 200: Response } } }, async (request) => {
    const { store } = authOf(request);
    const template = await templateOf(request);
    await store.authorizeTemplate('delete', { template });
    const inUse = await context.store.db
      .selectFrom('workspaces')
      .select('id')
      .where('template_id', '=', template.id)
      .where('deleted', '=', 0)
      .limit(1)
      .executeTakeFirst();
    if (inUse)
      throw new HttpProblem(400, 'All workspaces must be deleted before a template can be removed.', {
        detail: 'Delete or move the workspaces that use it first.',
      });
    await store.updateTemplate(template, { deleted: 1 }, 'delete');
    return { message: 'Template has been deleted!' };
  });

  app.get(
    '/templates/:template/versions',
    {
      schema: {
        params: TemplateParam,
        querystring: Type.Object({
          after_id: Type.Optional(Type.String({ format: 'uuid' })),
          limit: Type.Optional(Type.Integer({ minimum: 0 })),
          offset: Type.Optional(Type.Integer({ minimum: 0 })),
          include_archived: Type.Optional(Type.Boolean()),
        }),
        response: { 200: Type.Array(TemplateVersion) },
      },
    },
    async (request) => {
      const template = await templateOf(request);
      const query = request.query as { after_id?: string; limit?: number; offset?: number; include_archived?: boolean };
      let rows = (await versionsOf(request, template)).filter((v) => query.include_archived || v.version.archived === 0);
      if (query.after_id) {
        const index = rows.findIndex((v) => v.version.id === query.after_id);
        if (index < 0) throw new HttpProblem(400, `Record at "after_id" (${query.after_id}) does not exist.`);
        rows = rows.slice(index + 1);
      }
      rows = rows.slice(query.offset ?? 0);
      if (query.limit) rows = rows.slice(0, query.limit);
      return answerVersions(context, rows);
    },
  );

  app.patch(
    '/templates/:template/versions',
    { schema: { params: TemplateParam, body: Type.Object({ id: Type.String({ format: 'uuid' }) }), response: { 200: Response } } },
    async (request) => {
      const { store } = authOf(request);
      const template = await templateOf(request);
      await store.authorizeTemplate('update', { template });
      const { id } = request.body as { id: string };
      const found = await store.getTemplateVersion(id).catch((error: unknown) => {
        if (isNotFoundOrHidden(error)) throw new HttpProblem(404, 'Template version not found.');
        throw error;
      });
      if (found.version.template_id !== template.id)
        throw new HttpProblem(400, "The provided template version doesn't belong to the specified template.");
      const status = jobStatus(found.job);
      if (status !== 'succeeded') {
        throw new HttpProblem(403, 'Only versions that have been built successfully can be promoted.', {
          detail: `Attempted to promote a version with a ${status} build`,
        });
      }
      if (found.version.archived) throw new HttpProblem(400, 'The provided template version is archived.');
      await store.updateTemplate(template, { active_version_id: id });
      return { message: 'Updated the active template version!' };
    },
  );

  app.post(
    '/templates/:template/versions/archive',
    {
      schema: {
        params: TemplateParam,
        body: Type.Object({ all: Type.Optional(Type.Boolean()) }),
        response: { 200: Type.Object({ template_id: Type.String(), archived_ids: Type.Array(Type.String()) }) },
      },
    },
    async (request) => {
      const { store } = authOf(request);
      const template = await templateOf(request);
      await store.authorizeTemplate('update', { template });
      const all = (request.body as { all?: boolean }).all === true;
      const archived: string[] = [];
      for (const { version, job } of await versionsOf(request, template)) {
        if (version.archived || version.id === template.active_version_id) continue;
        if (!all && jobStatus(job) !== 'failed') continue;
        await store.updateTemplateVersion(version, { archived: 1 });
        archived.push(version.id);
      }
      return { template_id: template.id, archived_ids: archived };
    },
  );

  app.get(
    '/templates/:template/versions/:templateversionname',
    {
      schema: {
        params: Type.Object({ template: Type.String({ format: 'uuid' }), templateversionname: Type.String() }),
        response: { 200: TemplateVersion },
      },
    },
    async (request) => {
      const { all, index } = await namedVersion(request, await templateOf(request));
      return (await answerVersions(context, [all[index]!], { withMatched: true }))[0];
    },
  );
}
