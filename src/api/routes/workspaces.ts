import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { publishJobEvent } from '../../domain/provisioner-job-protocol.js';
import { isJobDone } from '../../domain/provisioner-job-status.js';
import { createBuild, createWorkspace, type CreateBuildInput, type CreateWorkspaceInput } from '../../domain/workspace-builds.js';
import { workspaceEventsChannel } from '../../domain/workspace-events.js';
import { parseWorkspaceSearch, type WorkspaceSearch } from '../../domain/workspace-search.js';
import { ConflictError, HttpProblem, NotFoundError } from '../../lib/errors.js';
import {
  CreateWorkspaceBuildRequest,
  CreateWorkspaceRequest,
  NameValue,
  ProvisionerJobLog,
  Response,
  Workspace,
  WorkspaceBuild,
  WorkspaceResource,
  WorkspacesResponse,
  type Workspace as WireWorkspace,
} from '../../sdk/wire/index.js';
import { parseJson } from '../../store/json-column.js';
import { getJobById } from '../../store/queries/provisioner-jobs.js';
import type { WorkspaceRow } from '../../store/queries/workspaces.js';
import type { ApiContext } from '../context.js';
import { toWireJobLog } from '../convert/provisioner-job.js';
import { httpOrWebSocketRoute } from '../http-or-websocket-route.js';
import { streamJobLogs } from '../job-log-stream.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { answerBuilds, answerWorkspaces } from '../workspace-answers.js';

const WorkspaceParam = Type.Object({ workspace: Type.String({ format: 'uuid' }) });
const BuildParam = Type.Object({ workspacebuild: Type.String({ format: 'uuid' }) });
const IncludeDeleted = Type.Object({ include_deleted: Type.Optional(Type.Boolean()) });

/** Whether an answered workspace passes the filters that need its latest build. */
function matchesDerived(workspace: WireWorkspace, search: WorkspaceSearch): boolean {
  if (search.status && workspace.latest_build.status !== search.status) return false;
  if (search.outdated !== undefined && workspace.outdated !== search.outdated) return false;
  if (search.dormant !== undefined && (workspace.dormant_at !== undefined) !== search.dormant) return false;
  if (search.hasAgent) {
    const agents = workspace.latest_build.resources.flatMap((r) => r.agents);
    if (!agents.some((agent) => agent.status === search.hasAgent)) return false;
  }
  return true;
}

/** Workspaces and their builds. */
export async function workspaceRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const now = () => context.store.clock.now();
  const one = async (row: WorkspaceRow) => {
    const [answer] = await answerWorkspaces(context, [row]);
    if (!answer) throw new NotFoundError('workspace');
    return answer;
  };
  const workspaceOf = async (request: FastifyRequest, includeDeleted = false) => {
    const row = await authOf(request).store.getWorkspace((request.params as { workspace: string }).workspace);
    if (row.deleted && !includeDeleted) {
      throw new HttpProblem(
        410,
        `Workspace "${row.id}" was deleted, you can view this workspace by specifying '?include_deleted=true' and trying again.`,
      );
    }
    return row;
  };
  const buildOf = async (request: FastifyRequest) =>
    authOf(request).store.getWorkspaceBuild((request.params as { workspacebuild: string }).workspacebuild);

  const create = async (request: FastifyRequest, organizationId: string | undefined) => {
    const { store } = authOf(request);
    const owner = await store.getUser((request.params as { user: string }).user);
    const row = await createWorkspace(
      store,
      context.store,
      owner,
      organizationId,
      request.body as CreateWorkspaceInput,
      context.checkSchedule,
      now(),
    );
    return one(row);
  };
  app.post(
    '/users/:user/workspaces',
    { schema: { params: Type.Object({ user: Type.String() }), body: CreateWorkspaceRequest, response: { 200: Workspace } } },
    async (request) => create(request, undefined),
  );
  app.post(
    '/organizations/:organization/members/:user/workspaces',
    {
      schema: {
        params: Type.Object({ organization: Type.String(), user: Type.String() }),
        body: CreateWorkspaceRequest,
        response: { 200: Workspace },
      },
    },
    async (request) => {
      const organization = await authOf(request).store.getOrganization((request.params as { organization: string }).organization);
      return create(request, organization.id);
    },
  );

  app.get(
    '/workspaces',
    {
      schema: {
        querystring: Type.Object({
          q: Type.Optional(Type.String()),
          limit: Type.Optional(Type.Integer({ minimum: 0 })),
          offset: Type.Optional(Type.Integer({ minimum: 0 })),
        }),
        response: { 200: WorkspacesResponse },
      },
    },
    async (request) => {
      const { store, user } = authOf(request);
      const query = request.query as { q?: string; limit?: number; offset?: number };
      const search = parseWorkspaceSearch(query.q, user.username);
      let ownerId: string | undefined;
      if (search.owner) {
        const owner = await store.getUser(search.owner).catch(() => undefined);
        if (!owner) return { workspaces: [], count: 0 };
        ownerId = owner.id;
      }
      let templateIds: string[] | undefined;
      if (search.template) {
        templateIds = (await store.listTemplates()).filter((t) => t.name.toLowerCase() === search.template).map((t) => t.id);
      }
      const rows = await store.listWorkspaces({ ownerId, templateIds, name: search.name });
      const answers = (await answerWorkspaces(context, rows)).filter((workspace) => matchesDerived(workspace, search));
      const offset = query.offset ?? 0;
      const page = answers.slice(offset, query.limit ? offset + query.limit : undefined);
      return { workspaces: page, count: answers.length };
    },
  );

  app.get(
    '/workspaces/:workspace',
    { schema: { params: WorkspaceParam, querystring: IncludeDeleted, response: { 200: Workspace } } },
    async (request) => one(await workspaceOf(request, (request.query as { include_deleted?: boolean }).include_deleted === true)),
  );

  app.get(
    '/users/:user/workspace/:workspacename',
    {
      schema: {
        params: Type.Object({ user: Type.String(), workspacename: Type.String() }),
        querystring: IncludeDeleted,
        response: { 200: Workspace },
      },
    },
    async (request) => {
      const { store } = authOf(request);
      const params = request.params as { user: string; workspacename: string };
      const owner = await store.getUser(params.user);
      const includeDeleted = (request.query as { include_deleted?: boolean }).include_deleted === true;
      return one(await store.getWorkspaceByOwnerAndName(owner.id, params.workspacename, includeDeleted));
    },
  );

  app.patch(
    '/workspaces/:workspace',
    { schema: { params: WorkspaceParam, body: Type.Object({ name: Type.Optional(Type.String()) }) } },
    async (request, reply) => {
      const { store } = authOf(request);
      const workspace = await workspaceOf(request, true);
      store.authorizeWorkspace('update', workspace);
      if (workspace.deleted) throw new HttpProblem(405, 'A deleted workspace cannot be renamed.');
      const name = (request.body as { name?: string }).name;
      if (!name || name === workspace.name) return reply.code(204).send();
      if (!context.values.allowWorkspaceRenames) {
        throw new HttpProblem(400, 'Workspace renames are not allowed.', {
          detail: 'An administrator can allow them with --allow-workspace-renames.',
        });
      }
      try {
        await store.updateWorkspace(workspace, { name });
      } catch (error) {
        if (error instanceof ConflictError)
          throw new HttpProblem(409, `Workspace "${name}" already exists.`, { validations: [{ field: 'name', detail: 'already in use' }] });
        throw error;
      }
      await context.store.pubsub.publish(workspaceEventsChannel(workspace.id), 'renamed');
      return reply.code(204).send();
    },
  );

  app.post(
    '/workspaces/:workspace/builds',
    { schema: { params: WorkspaceParam, body: CreateWorkspaceBuildRequest, response: { 201: WorkspaceBuild } } },
    async (request, reply) => {
      const { store } = authOf(request);
      const workspace = await workspaceOf(request);
      const build = await createBuild(store, context.store, workspace, request.body as CreateBuildInput, now());
      const [answer] = await answerBuilds(context, [build], [workspace]);
      return reply.code(201).send(answer);
    },
  );

  app.get(
    '/workspaces/:workspace/builds',
    {
      schema: {
        params: WorkspaceParam,
        querystring: Type.Object({
          after_id: Type.Optional(Type.String({ format: 'uuid' })),
          limit: Type.Optional(Type.Integer({ minimum: 0 })),
          offset: Type.Optional(Type.Integer({ minimum: 0 })),
          since: Type.Optional(Type.String({ format: 'date-time' })),
        }),
        response: { 200: Type.Array(WorkspaceBuild) },
      },
    },
    async (request) => {
      const workspace = await workspaceOf(request, true);
      const query = request.query as { after_id?: string; limit?: number; offset?: number; since?: string };
      let builds = await authOf(request).store.listWorkspaceBuilds(workspace);
      if (query.since) builds = builds.filter((b) => b.created_at >= new Date(query.since ?? '').toISOString());
      if (query.after_id) {
        const index = builds.findIndex((b) => b.id === query.after_id);
        if (index < 0) throw new HttpProblem(400, `Record at "after_id" (${query.after_id}) does not exist.`);
        builds = builds.slice(index + 1);
      }
      builds = builds.slice(query.offset ?? 0);
      if (query.limit) builds = builds.slice(0, query.limit);
      return answerBuilds(context, builds, [workspace]);
    },
  );

  app.get(
    '/users/:user/workspace/:workspacename/builds/:buildnumber',
    {
      schema: {
        params: Type.Object({ user: Type.String(), workspacename: Type.String(), buildnumber: Type.String() }),
        response: { 200: WorkspaceBuild },
      },
    },
    async (request) => {
      const { store } = authOf(request);
      const params = request.params as { user: string; workspacename: string; buildnumber: string };
      if (!/^\d+$/.test(params.buildnumber)) throw new HttpProblem(400, 'Failed to parse build number as integer.');
      const owner = await store.getUser(params.user);
      const workspace = await store.getWorkspaceByOwnerAndName(owner.id, params.workspacename, true);
      const build = (await store.listWorkspaceBuilds(workspace)).find((b) => b.build_number === Number(params.buildnumber));
      if (!build) throw new HttpProblem(404, `Workspace "${params.workspacename}" Build ${params.buildnumber} does not exist.`);
      return (await answerBuilds(context, [build], [workspace]))[0];
    },
  );

  app.get('/workspacebuilds/:workspacebuild', { schema: { params: BuildParam, response: { 200: WorkspaceBuild } } }, async (request) => {
    const { build, workspace } = await buildOf(request);
    return (await answerBuilds(context, [build], [workspace]))[0];
  });

  app.patch('/workspacebuilds/:workspacebuild/cancel', { schema: { params: BuildParam, response: { 200: Response } } }, async (request) => {
    const { store, subject } = authOf(request);
    const { build, workspace } = await buildOf(request);
    const template = await context.store.db
      .selectFrom('templates')
      .select('allow_user_cancel_workspace_jobs')
      .where('id', '=', workspace.template_id)
      .executeTakeFirst();
    if (
      !template?.allow_user_cancel_workspace_jobs &&
      !subject.roles.some((role) => role.name === 'owner' && role.organization_id === '')
    ) {
      throw new HttpProblem(403, 'User is not allowed to cancel workspace builds. Owner role is required.');
    }
    const job = await getJobById(context.store.db, build.job_id);
    if (!job) throw new NotFoundError('provisioner job');
    store.authorizeWorkspace('update', workspace);
    if (isJobDone(job)) throw new HttpProblem(400, 'Job has already completed!');
    if (job.canceled_at) throw new HttpProblem(400, 'Job has already been marked as canceled!');
    await store.cancelWorkspaceBuildJob(workspace, job);
    await publishJobEvent(context.store, job.id, job.started_at ? 'canceled' : 'done');
    await context.store.pubsub.publish(workspaceEventsChannel(workspace.id), 'build');
    return { message: 'Job has been marked as canceled...' };
  });

  httpOrWebSocketRoute(app, {
    url: '/workspacebuilds/:workspacebuild/logs',
    schema: {
      params: BuildParam,
      querystring: Type.Object({
        before: Type.Optional(Type.Integer()),
        after: Type.Optional(Type.Integer()),
        follow: Type.Optional(Type.String()),
      }),
      response: { 200: Type.Array(ProvisionerJobLog) },
    },
    handler: async (request) => {
      const { build } = await buildOf(request);
      const { before, after } = request.query as { before?: number; after?: number };
      const logs = await context.store.db
        .selectFrom('provisioner_job_logs')
        .selectAll()
        .where('job_id', '=', build.job_id)
        .$if(after !== undefined, (q) => q.where('id', '>', after ?? 0))
        .$if(before !== undefined, (q) => q.where('id', '<', before ?? 0))
        .orderBy('id')
        .execute();
      return logs.map(toWireJobLog);
    },
    wsHandler: async (socket: WebSocket, request: FastifyRequest) => {
      const { build } = await buildOf(request);
      await streamJobLogs(socket, authOf(request).store, context.store.pubsub, build.job_id, (request.query as { after?: number }).after);
    },
  });

  app.get(
    '/workspacebuilds/:workspacebuild/resources',
    { schema: { params: BuildParam, response: { 200: Type.Array(WorkspaceResource) } } },
    async (request) => {
      const { build, workspace } = await buildOf(request);
      return (await answerBuilds(context, [build], [workspace]))[0]?.resources ?? [];
    },
  );

  app.get(
    '/workspacebuilds/:workspacebuild/parameters',
    { schema: { params: BuildParam, response: { 200: Type.Array(NameValue) } } },
    async (request) => parseJson((await buildOf(request)).build.rich_parameter_values, []),
  );

  app.get('/workspacebuilds/:workspacebuild/state', { schema: { params: BuildParam } }, async (request, reply) => {
    const { store } = authOf(request);
    const { build, workspace } = await buildOf(request);
    // The state may hold secrets of the infrastructure: only template managers read it.
    const template = await store.getTemplate(workspace.template_id);
    await store.authorizeTemplate('update', { template }).catch(() => {
      throw new NotFoundError('workspace build state');
    });
    return reply.type('application/json').send(build.provisioner_state ?? Buffer.alloc(0));
  });
}
