import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { publishJobEvent } from '../../domain/provisioner-job-protocol.js';
import { isJobDone } from '../../domain/provisioner-job-status.js';
import { createBuild, createWorkspace } from '../../domain/workspace-builds.js';
import { workspaceEventsChannel } from '../../domain/workspace-events.js';
import { parseWorkspaceSearch } from '../../domain/workspace-search.js';
import { ConflictError, HttpProblem, NotFoundError } from '../../lib/errors.js';
import {
  CreateWorkspaceBuildRequest,
  CreateWorkspaceRequest,
  NameValue,
  ProvisionerJobLog,
  Response,
  UpdateWorkspaceBuildStateRequest,
  Workspace,
  WorkspaceBuild,
  WorkspaceResource,
  WorkspacesResponse,
} from '../../sdk/wire/index.js';
import type { AuthorizedStore } from '../../store/authorized-store.js';
import { parseJson } from '../../store/json-column.js';
import type { WorkspaceRow } from '../../store/rows.js';
import type { ApiContext } from '../context.js';
import { toWireJobLog } from '../convert/provisioner-job.js';
import { httpOrWebSocketRoute } from '../http-or-websocket-route.js';
import { trackWebSocket } from '../live-connections.js';
import { streamJobLogs } from '../job-log-stream.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { answerBuilds, answerCreatedBuild, answerCreatedWorkspace, answerWorkspaces } from '../workspace-answers.js';
import { LogIdCursor, PageLimit, PageOffset } from '../paging.js';

const WorkspaceParam = Type.Object({ workspace: Type.String({ format: 'uuid' }) });
const BuildParam = Type.Object({ workspacebuild: Type.String({ format: 'uuid' }) });
const IncludeDeleted = Type.Object({ include_deleted: Type.Optional(Type.Boolean()) });
const LogRange = Type.Object({
  before: Type.Optional(LogIdCursor),
  after: Type.Optional(LogIdCursor),
  follow: Type.Optional(Type.String()),
});

/** The workspace the path names; a deleted one is gone (410) unless the caller asked for deleted ones. */
function workspaceOfPath(request: FastifyRequest, includeDeleted: boolean): WorkspaceRow {
  const row = pathResource(request, 'workspace');
  if (row.deleted && !includeDeleted) {
    throw new HttpProblem(
      410,
      `Workspace "${row.id}" was deleted, you can view this workspace by specifying '?include_deleted=true' and trying again.`,
    );
  }
  return row;
}

/** A log range from a query the route's schema has validated (the WebSocket handler sees it untyped). */
function logRange(query: unknown): { before?: number; after?: number } {
  if (typeof query !== 'object' || query === null) return {};
  return {
    ...('before' in query && typeof query.before === 'number' ? { before: query.before } : {}),
    ...('after' in query && typeof query.after === 'number' ? { after: query.after } : {}),
  };
}

/** Workspaces and their builds. */
export async function workspaceRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  loadPathResources(app);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const now = () => context.store.clock.now();
  const one = async (store: AuthorizedStore, row: WorkspaceRow) => {
    const [answer] = await answerWorkspaces(context, store, [row]);
    if (!answer) throw new NotFoundError('workspace');
    return answer;
  };

  const create = async (request: FastifyRequest, input: CreateWorkspaceRequest, organizationId: string | undefined) => {
    const { store, user } = authOf(request);
    const owner = pathResource(request, 'user');
    const created = await createWorkspace(store, context.store.pubsub, {
      owner,
      organizationId,
      input,
      checkSchedule: context.checkSchedule,
      now: now(),
      externalAuth: { providers: context.values.externalAuthProviders, accessUrl: context.values.accessUrl },
    });
    return answerCreatedWorkspace(context, store, created, { owner, initiator: user });
  };
  api.post(
    '/users/:user/workspaces',
    { schema: { params: Type.Object({ user: Type.String() }), body: CreateWorkspaceRequest, response: { 200: Workspace } } },
    async (request) => create(request, request.body, undefined),
  );
  api.post(
    '/organizations/:organization/members/:user/workspaces',
    {
      schema: {
        params: Type.Object({ organization: Type.String(), user: Type.String() }),
        body: CreateWorkspaceRequest,
        response: { 200: Workspace },
      },
    },
    async (request) => create(request, request.body, pathResource(request, 'organization').id),
  );

  api.get(
    '/workspaces',
    {
      schema: {
        querystring: Type.Object({
          q: Type.Optional(Type.String()),
          limit: Type.Optional(PageLimit),
          offset: Type.Optional(PageOffset),
        }),
        response: { 200: WorkspacesResponse },
      },
    },
    async (request) => {
      const { store, user } = authOf(request);
      const search = parseWorkspaceSearch(request.query.q, user.username);
      let ownerId: string | undefined;
      if (search.owner) {
        const owner = await store.users.get(search.owner).catch(() => undefined);
        if (!owner) return { workspaces: [], count: 0 };
        ownerId = owner.id;
      }
      const { rows, count } = await store.workspaces.list({
        filter: {
          ownerId,
          templateName: search.template,
          name: search.name,
          status: search.status,
          outdated: search.outdated,
          dormant: search.dormant,
          hasAgent: search.hasAgent,
          shared: search.shared,
        },
        limit: request.query.limit ?? 0,
        offset: request.query.offset ?? 0,
      });
      return { workspaces: await answerWorkspaces(context, store, rows), count };
    },
  );

  api.get(
    '/workspaces/:workspace',
    { schema: { params: WorkspaceParam, querystring: IncludeDeleted, response: { 200: Workspace } } },
    async (request) => one(authOf(request).store, workspaceOfPath(request, request.query.include_deleted === true)),
  );

  api.get(
    '/users/:user/workspace/:workspacename',
    {
      // The owner is not loaded as a user: a user the workspace is shared with may not read them.
      config: { loadItself: ['user'] },
      schema: {
        params: Type.Object({ user: Type.String(), workspacename: Type.String() }),
        querystring: IncludeDeleted,
        response: { 200: Workspace },
      },
    },
    async (request) => {
      const { store } = authOf(request);
      const includeDeleted = request.query.include_deleted === true;
      const { user, workspacename } = request.params;
      return one(store, await store.workspaces.getByOwnerRefAndName(user, workspacename, includeDeleted));
    },
  );

  api.patch(
    '/workspaces/:workspace',
    { schema: { params: WorkspaceParam, body: Type.Object({ name: Type.Optional(Type.String()) }) } },
    async (request, reply) => {
      const { store } = authOf(request);
      const workspace = workspaceOfPath(request, true);
      store.workspaces.authorize('update', workspace);
      if (workspace.deleted) throw new HttpProblem(405, 'A deleted workspace cannot be renamed.');
      const name = request.body.name;
      if (!name || name === workspace.name) return reply.code(204).send();
      if (!context.values.allowWorkspaceRenames) {
        throw new HttpProblem(400, 'Workspace renames are not allowed.', {
          detail: 'An administrator can allow them with --allow-workspace-renames.',
        });
      }
      try {
        await store.workspaces.update(workspace, { name });
      } catch (error) {
        if (error instanceof ConflictError)
          throw new HttpProblem(409, `Workspace "${name}" already exists.`, { validations: [{ field: 'name', detail: 'already in use' }] });
        throw error;
      }
      await context.store.pubsub.publish(workspaceEventsChannel(workspace.id), 'renamed');
      return reply.code(204).send();
    },
  );

  api.post(
    '/workspaces/:workspace/builds',
    { schema: { params: WorkspaceParam, body: CreateWorkspaceBuildRequest, response: { 201: WorkspaceBuild } } },
    async (request, reply) => {
      const { store } = authOf(request);
      const workspace = workspaceOfPath(request, false);
      const created = await createBuild(store, context.store.pubsub, workspace, request.body, now());
      return reply.code(201).send(await answerCreatedBuild(context, store, workspace, created));
    },
  );

  api.get(
    '/workspaces/:workspace/builds',
    {
      schema: {
        params: WorkspaceParam,
        querystring: Type.Object({
          after_id: Type.Optional(Type.String({ format: 'uuid' })),
          limit: Type.Optional(PageLimit),
          offset: Type.Optional(PageOffset),
          since: Type.Optional(Type.String({ format: 'date-time' })),
        }),
        response: { 200: Type.Array(WorkspaceBuild) },
      },
    },
    async (request) => {
      const { store } = authOf(request);
      const workspace = workspaceOfPath(request, true);
      const { after_id: afterId, since } = request.query;
      const builds = await store.workspaceBuilds.list(workspace, {
        since: since ? new Date(since).toISOString() : undefined,
        afterId,
        limit: request.query.limit ?? 0,
        offset: request.query.offset ?? 0,
      });
      if (!builds) throw new HttpProblem(400, `Record at "after_id" (${afterId}) does not exist.`);
      return answerBuilds(context, store, builds, [workspace]);
    },
  );

  api.get(
    '/users/:user/workspace/:workspacename/builds/:buildnumber',
    {
      // As the workspace's own route: the owner is not loaded as a user.
      config: { loadItself: ['user'] },
      schema: {
        params: Type.Object({ user: Type.String(), workspacename: Type.String(), buildnumber: Type.String() }),
        response: { 200: WorkspaceBuild },
      },
    },
    async (request) => {
      const { store } = authOf(request);
      const { workspacename, buildnumber } = request.params;
      if (!/^\d+$/.test(buildnumber)) throw new HttpProblem(400, 'Failed to parse build number as integer.');
      const workspace = await store.workspaces.getByOwnerRefAndName(request.params.user, workspacename, true);
      const build = await store.workspaceBuilds.getByNumber(workspace, Number(buildnumber)).catch((error: unknown) => {
        if (error instanceof NotFoundError) throw new HttpProblem(404, `Workspace "${workspacename}" Build ${buildnumber} does not exist.`);
        throw error;
      });
      return (await answerBuilds(context, store, [build], [workspace]))[0];
    },
  );

  api.get('/workspacebuilds/:workspacebuild', { schema: { params: BuildParam, response: { 200: WorkspaceBuild } } }, async (request) => {
    const { build, workspace } = pathResource(request, 'workspaceBuild');
    return (await answerBuilds(context, authOf(request).store, [build], [workspace]))[0];
  });

  api.patch('/workspacebuilds/:workspacebuild/cancel', { schema: { params: BuildParam, response: { 200: Response } } }, async (request) => {
    const { store, subject } = authOf(request);
    const { build, workspace } = pathResource(request, 'workspaceBuild');
    const template = await store.workspaces.template(workspace).catch(() => undefined);
    if (
      !template?.allow_user_cancel_workspace_jobs &&
      !subject.roles.some((role) => role.name === 'owner' && role.organization_id === '')
    ) {
      throw new HttpProblem(403, 'User is not allowed to cancel workspace builds. Owner role is required.');
    }
    const job = await store.workspaceBuilds.job(workspace, build);
    store.workspaces.authorize('update', workspace);
    if (isJobDone(job)) throw new HttpProblem(400, 'Job has already completed!');
    if (job.canceled_at) throw new HttpProblem(400, 'Job has already been marked as canceled!');
    const canceled = await store.workspaceBuilds.cancelJob(
      workspace,
      job,
      context.connectedDaemons.cancellation(context.store.clock.now()),
    );
    await publishJobEvent(context.store, job.id, canceled.completed_at ? 'done' : 'canceled');
    await context.store.pubsub.publish(workspaceEventsChannel(workspace.id), 'build');
    return { message: 'Job has been marked as canceled...' };
  });

  httpOrWebSocketRoute(app, {
    url: '/workspacebuilds/:workspacebuild/logs',
    schema: { params: BuildParam, querystring: LogRange, response: { 200: Type.Array(ProvisionerJobLog) } },
    handler: async (request) => {
      const { build, workspace } = pathResource(request, 'workspaceBuild');
      const logs = await authOf(request).store.workspaceBuilds.logs(workspace, build, logRange(request.query));
      return logs.map(toWireJobLog);
    },
    wsHandler: async (socket: WebSocket, request: FastifyRequest) => {
      const { build } = pathResource(request, 'workspaceBuild');
      trackWebSocket(context, request, socket, (auth) => auth.store.workspaceBuilds.get(build.id));
      await streamJobLogs(socket, authOf(request).store, context.store.pubsub, build.job_id, logRange(request.query).after);
    },
  });

  api.get(
    '/workspacebuilds/:workspacebuild/resources',
    { schema: { params: BuildParam, response: { 200: Type.Array(WorkspaceResource) } } },
    async (request) => {
      const { build, workspace } = pathResource(request, 'workspaceBuild');
      return (await answerBuilds(context, authOf(request).store, [build], [workspace]))[0]?.resources ?? [];
    },
  );

  api.get(
    '/workspacebuilds/:workspacebuild/parameters',
    { schema: { params: BuildParam, response: { 200: Type.Array(NameValue) } } },
    async (request) => parseJson(pathResource(request, 'workspaceBuild').build.rich_parameter_values, []),
  );

  api.get('/workspacebuilds/:workspacebuild/state', { schema: { params: BuildParam } }, async (request, reply) => {
    const { store } = authOf(request);
    const { build, workspace } = pathResource(request, 'workspaceBuild');
    // The state may hold secrets of the infrastructure: only template managers read it.
    const template = await store.templates.get(workspace.template_id);
    await store.templates.authorize('update', { template }).catch(() => {
      throw new NotFoundError('workspace build state');
    });
    return reply.type('application/json').send(build.provisioner_state ?? Buffer.alloc(0));
  });

  api.put(
    '/workspacebuilds/:workspacebuild/state',
    { schema: { params: BuildParam, body: UpdateWorkspaceBuildStateRequest } },
    async (request, reply) => {
      const { build, workspace } = pathResource(request, 'workspaceBuild');
      const state = Buffer.from(request.body.state, 'base64');
      await authOf(request).store.workspaceBuilds.setProvisionerState(workspace, build, state);
      return reply.code(204).send();
    },
  );
}
