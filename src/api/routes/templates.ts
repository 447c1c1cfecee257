import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { checkTzOffset, recentDays } from '../../domain/insights.js';
import { jobStatus } from '../../domain/provisioner-job-status.js';
import { createTemplate, declaredTemplateFields, parseTemplateSearch, updateTemplateMeta } from '../../domain/templates.js';
import { HttpProblem, isNotFoundOrHidden, NotFoundError } from '../../lib/errors.js';
import {
  CreateTemplateRequest,
  DausResponse,
  Response,
  Template,
  TemplateExample,
  TemplateVersion,
  UpdateTemplateMeta,
} from '../../sdk/wire/index.js';
import type { AuthorizedStore } from '../../store/authorized-store.js';
import type { TemplateRow } from '../../store/rows.js';
import type { EnabledFeatures } from '../../lib/enabled-features.js';
import type { ApiContext } from '../context.js';
import { toWireDaus } from '../convert/insights.js';
import { toWireTemplate } from '../convert/template.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { answerVersions } from './template-versions.js';
import { PageLimit, PageOffset } from '../paging.js';
import {
  notifyTemplateDeleted,
  notifyTemplateDeprecated,
  notifyWorkspacesOutOfDate,
} from '../../domain/notifications/events/template-events.js';
import { eventNotifier } from '../event-notifier.js';

const OrgParam = Type.Object({ organization: Type.String({ minLength: 1 }) });
const TemplateParam = Type.Object({ template: Type.String({ format: 'uuid' }) });
// The template's daily active users take the reference's offset; without one, days are UTC days.
const TzOffsetQuery = Type.Object({ tz_offset: Type.Optional(Type.Integer()) });
const ListQuery = Type.Object({
  q: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
});
type ListQuery = typeof ListQuery.static;

/** Port share levels from the narrowest to the widest. */
const SHARE_LEVELS = ['owner', 'organization', 'authenticated', 'public'];

/** Templates as the API shows them, with their related rows read in a fixed number of queries. */
async function answerTemplates(store: AuthorizedStore, rows: readonly TemplateRow[], features: EnabledFeatures): Promise<Template[]> {
  if (rows.length === 0) return [];
  const related = await store.templates.relations(rows);
  return rows.map((row) => toWireTemplate(row, related, features));
}

async function answerTemplate(store: AuthorizedStore, row: TemplateRow, features: EnabledFeatures): Promise<Template> {
  const [answer] = await answerTemplates(store, [row], features);
  if (!answer) throw new NotFoundError('template');
  return answer;
}

/** The version of a template named in the path, or the reference's 404 naming it. */
async function namedVersion(store: AuthorizedStore, template: TemplateRow, name: string) {
  try {
    return await store.templateVersions.getByName(template, name);
  } catch (error) {
    if (isNotFoundOrHidden(error)) throw new HttpProblem(404, `No template version found by name "${name}".`);
    throw error;
  }
}

/**
 * One page of the templates the caller may read that pass the search `q`, filtered and paged in
 * SQL; `organizationIds` narrows it to those organizations.
 */
async function search(
  request: FastifyRequest,
  features: EnabledFeatures,
  query: ListQuery,
  organizationIds?: readonly string[],
): Promise<Template[]> {
  const { store, user } = authOf(request);
  const parsed = parseTemplateSearch(query.q);
  let orgIds = organizationIds;
  if (parsed.organization) {
    const org = await store.organizations.get(parsed.organization).catch((error: unknown) => {
      if (isNotFoundOrHidden(error)) return undefined;
      throw error;
    });
    orgIds = org && (!orgIds || orgIds.includes(org.id)) ? [org.id] : [];
  }
  const rows = await store.templates.list({
    organizationIds: orgIds,
    exactName: parsed.exactName,
    text: parsed.name,
    deprecated: parsed.deprecated ?? false,
    ids: parsed.ids,
    author: parsed.author === 'me' ? user.username : parsed.author,
    limit: query.limit ?? 0,
    offset: query.offset ?? 0,
  });
  return answerTemplates(store, rows, features);
}

/** Templates: create, read, search, update, delete, and their versions by name and order. */
export async function templateRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  loadPathResources(app);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const now = () => context.store.clock.now();

  api.get('/templates', { schema: { querystring: ListQuery, response: { 200: Type.Array(Template) } } }, async (request) =>
    search(request, context.store.features, request.query),
  );

  api.get(
    '/organizations/:organization/templates',
    { schema: { params: OrgParam, querystring: ListQuery, response: { 200: Type.Array(Template) } } },
    async (request) => search(request, context.store.features, request.query, [pathResource(request, 'organization').id]),
  );

  api.post(
    '/organizations/:organization/templates',
    { schema: { params: OrgParam, body: CreateTemplateRequest, response: { 200: Template, 201: Template } } },
    async (request, reply) => {
      const { store } = authOf(request);
      const row = await createTemplate(store, pathResource(request, 'organization').id, request.body, now());
      return reply.code(200).send(await answerTemplate(store, row, context.store.features));
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
  api.get('/templates/examples', { schema: { response: { 200: Type.Array(TemplateExample) } } }, examples);
  api.get(
    '/organizations/:organization/templates/examples',
    { schema: { params: OrgParam, response: { 200: Type.Array(TemplateExample) } } },
    examples,
  );

  const ByNameParams = Type.Object({ organization: Type.String(), templatename: Type.String() });
  const templateByName = async (request: FastifyRequest, name: string) =>
    authOf(request).store.templates.getByName(pathResource(request, 'organization').id, name);

  api.get(
    '/organizations/:organization/templates/:templatename',
    { schema: { params: ByNameParams, response: { 200: Template } } },
    async (request) =>
      answerTemplate(authOf(request).store, await templateByName(request, request.params.templatename), context.store.features),
  );

  const VersionByNameParams = Type.Object({ organization: Type.String(), templatename: Type.String(), templateversionname: Type.String() });

  api.get(
    '/organizations/:organization/templates/:templatename/versions/:templateversionname',
    { schema: { params: VersionByNameParams, response: { 200: TemplateVersion } } },
    async (request) => {
      const { store } = authOf(request);
      const template = await templateByName(request, request.params.templatename);
      const named = await namedVersion(store, template, request.params.templateversionname);
      return (await answerVersions(store, now(), [named]))[0];
    },
  );

  api.get(
    '/organizations/:organization/templates/:templatename/versions/:templateversionname/previous',
    { schema: { params: VersionByNameParams, response: { 200: TemplateVersion } } },
    async (request) => {
      const { store } = authOf(request);
      const template = await templateByName(request, request.params.templatename);
      const named = await namedVersion(store, template, request.params.templateversionname);
      const previous = await store.templateVersions.getPrevious(template, named.version);
      if (!previous) throw new HttpProblem(404, `No previous template version found for "${named.version.name}".`);
      return (await answerVersions(store, now(), [previous]))[0];
    },
  );

  api.get('/templates/:template', { schema: { params: TemplateParam, response: { 200: Template } } }, async (request) =>
    answerTemplate(authOf(request).store, pathResource(request, 'template'), context.store.features),
  );

  api.get(
    '/templates/:template/daus',
    { schema: { params: TemplateParam, querystring: TzOffsetQuery, response: { 200: DausResponse } } },
    async (request) => {
      const offset = checkTzOffset(request.query.tz_offset ?? 0);
      const window = recentDays(context.store.clock.now(), offset);
      const days = await authOf(request).store.insights.templateDailyActiveUsers(pathResource(request, 'template'), window, offset * 60);
      return toWireDaus(days, offset);
    },
  );

  api.patch(
    '/templates/:template',
    { schema: { params: TemplateParam, body: UpdateTemplateMeta, response: { 200: Template, 304: Type.Null() } } },
    async (request, reply) => {
      const { store } = authOf(request);
      const template = pathResource(request, 'template');
      const updated = await updateTemplateMeta(store, template, request.body);
      if (!updated) return reply.code(304).send(null);
      if (updated.deprecation_message !== '' && updated.deprecation_message !== template.deprecation_message)
        await notifyTemplateDeprecated(eventNotifier(context, request.log), updated);
      // Lowering the maximum share level takes effect on existing shares at once.
      if (SHARE_LEVELS.indexOf(updated.max_port_share_level) < SHARE_LEVELS.indexOf(template.max_port_share_level)) {
        await store.templates.narrowPortShares(updated, SHARE_LEVELS);
      }
      return answerTemplate(store, updated, context.store.features);
    },
  );

  api.delete('/templates/:template', { schema: { params: TemplateParam, response: { 200: Response } } }, async (request) => {
    const { store } = authOf(request);
    const template = pathResource(request, 'template');
    await store.templates.authorize('delete', { template });
    if (await store.templates.hasWorkspaces(template))
      throw new HttpProblem(400, 'All workspaces must be deleted before a template can be removed.', {
        detail: 'Delete or move the workspaces that use it first.',
      });
    await store.templates.update(template, { deleted: 1 }, 'delete');
    await notifyTemplateDeleted(eventNotifier(context, request.log), template, authOf(request).user);
    return { message: 'Template has been deleted!' };
  });

  api.get(
    '/templates/:template/versions',
    {
      schema: {
        params: TemplateParam,
        querystring: Type.Object({
          after_id: Type.Optional(Type.String({ format: 'uuid' })),
          limit: Type.Optional(PageLimit),
          offset: Type.Optional(PageOffset),
          include_archived: Type.Optional(Type.Boolean()),
        }),
        response: { 200: Type.Array(TemplateVersion) },
      },
    },
    async (request) => {
      const { store } = authOf(request);
      const { query } = request;
      const page = await store.templateVersions.page(pathResource(request, 'template'), {
        includeArchived: query.include_archived === true,
        afterId: query.after_id,
        offset: query.offset ?? 0,
        limit: query.limit ?? 0,
      });
      if (page === 'missing-after') throw new HttpProblem(400, `Record at "after_id" (${query.after_id}) does not exist.`);
      return answerVersions(store, now(), page);
    },
  );

  api.patch(
    '/templates/:template/versions',
    { schema: { params: TemplateParam, body: Type.Object({ id: Type.String({ format: 'uuid' }) }), response: { 200: Response } } },
    async (request) => {
      const { store } = authOf(request);
      const template = pathResource(request, 'template');
      await store.templates.authorize('update', { template });
      const { id } = request.body;
      const found = await store.templateVersions.get(id).catch((error: unknown) => {
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
      const updated = await store.templates.update(template, { active_version_id: id, ...declaredTemplateFields(found.version) });
      if (template.active_version_id !== id) await notifyWorkspacesOutOfDate(eventNotifier(context, request.log), updated, found.version);
      return { message: 'Updated the active template version!' };
    },
  );

  api.post(
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
      const template = pathResource(request, 'template');
      await store.templates.authorize('update', { template });
      const all = request.body.all === true;
      const archived: string[] = [];
      for (const { version, job } of await store.templateVersions.list(template)) {
        if (version.archived || version.id === template.active_version_id) continue;
        if (!all && jobStatus(job) !== 'failed') continue;
        await store.templateVersions.update(version, { archived: 1 });
        archived.push(version.id);
      }
      return { template_id: template.id, archived_ids: archived };
    },
  );

  api.get(
    '/templates/:template/versions/:templateversionname',
    {
      schema: {
        params: Type.Object({ template: Type.String({ format: 'uuid' }), templateversionname: Type.String() }),
        response: { 200: TemplateVersion },
      },
    },
    async (request) => {
      const { store } = authOf(request);
      const named = await namedVersion(store, pathResource(request, 'template'), request.params.templateversionname);
      return (await answerVersions(store, now(), [named]))[0];
    },
  );
}
