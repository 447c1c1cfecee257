import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { checkPortShare } from '../../domain/port-sharing.js';
import { recordUsageMinute, type SessionKind } from '../../domain/usage-minutes.js';
import { recordWorkspaceUsage } from '../../domain/workspace-usage.js';
import { workspaceEventsChannel } from '../../domain/workspace-events.js';
import { HttpProblem, isNotFoundOrHidden, NotFoundError } from '../../lib/errors.js';
import { isUuid } from '../../lib/random.js';
import type { WorkspaceDetails, WorkspaceRow, WorkspaceWithLatestBuild } from '../../store/rows.js';
import type { AuthorizedStore } from '../../store/authorized-store.js';
import { ShareLevel, type Workspace } from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { toWirePortShare } from '../convert/workspace-port-share.js';
import { httpOrWebSocketRoute } from '../http-or-websocket-route.js';
import { trackEventStream, trackWebSocket } from '../live-connections.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { sseStart, sseWriteJson, SSE_PING_MS } from '../server-sent-events.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { answerWorkspaces } from '../workspace-answers.js';
import { WorkspaceWatchHub } from '../workspace-watch-hub.js';
import { workspaceListWatchRoute } from '../workspace-list-watch.js';

const WorkspaceParam = Type.Object({ workspace: Type.String({ format: 'uuid' }) });
const UsageBody = Type.Object({ agent_id: Type.Optional(Type.String()), app_name: Type.Optional(Type.String()) });
/** The apps a usage report may name (reference §6.5); the CLI maps others to `ssh`. */
const USAGE_APPS: readonly string[] = ['vscode', 'jetbrains', 'reconnecting-pty', 'ssh'];
/** The kind of session insights count for each app a usage report may name. */
const USAGE_SESSION_KINDS: Readonly<Record<string, SessionKind>> = {
  vscode: 'vscode',
  jetbrains: 'jetbrains',
  'reconnecting-pty': 'reconnecting_pty',
  ssh: 'ssh',
};
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const PortShare = Type.Object({
  workspace_id: Type.String(),
  agent_name: Type.String(),
  port: Type.Integer(),
  share_level: ShareLevel,
  protocol: Type.String(),
});

/** Favorites, usage, shared ports and the watch streams of a workspace. */
export async function workspaceActivityRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  loadPathResources(app);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const workspaceOf = (request: FastifyRequest) => {
    const row = pathResource(request, 'workspace');
    if (row.deleted) throw new HttpProblem(410, `Workspace "${row.id}" was deleted.`);
    return row;
  };
  const watches = new WorkspaceWatchHub<WatchMemo>({
    pubsub: context.store.pubsub,
    // A re-read tells watchers what already happened: it goes ahead of statements starting new work.
    read: async (watcherStore, ids, previous) => {
      const store = watcherStore.urgent();
      const ahead = readAhead(store, ids, previous);
      const { found, refused } = await store.workspaces.getWithLatestBuilds(ids);
      const rows = [...found.values()];
      const latestBuilds = new Map(
        rows.flatMap(({ workspace, latestBuild }) => (latestBuild ? [[workspace.id, latestBuild] as const] : [])),
      );
      // What was read ahead counts only if it was read for the very builds that are still the latest.
      const details = ahead && sameLatestBuilds(rows, ahead.rows) ? await ahead.details : undefined;
      const answered = await answerWorkspaces(
        context,
        store,
        rows.map(({ workspace }) => workspace),
        latestBuilds,
        details,
      );
      const byId = new Map(answered.map((answer) => [answer.id, answer]));
      const memos = new Map(rows.map((row) => [row.workspace.id, watchMemo(row, byId.get(row.workspace.id))]));
      return { answers: new Map(rows.map(({ workspace }) => [workspace.id, byId.get(workspace.id)])), refused, memos };
    },
    // Read apart: a re-read that reads ahead takes one round trip, the others two; together all take two.
    readKind: (memo) => (readsAhead(memo) ? 'ahead' : 'after'),
    onCounts: (counts) => context.observer?.workspaceWatches(counts.groups, counts.watchers),
  });

  for (const [method, favorite] of [
    ['PUT', 1],
    ['DELETE', 0],
  ] as const) {
    api.route({
      method,
      url: '/workspaces/:workspace/favorite',
      schema: { params: WorkspaceParam },
      handler: async (request, reply) => {
        const { store, user } = authOf(request);
        const workspace = workspaceOf(request);
        if (workspace.owner_id !== user.id) throw new HttpProblem(403, 'You can only favorite workspaces that you own.');
        await store.workspaces.update(workspace, { favorite });
        await context.store.pubsub.publish(workspaceEventsChannel(workspace.id), 'favorite');
        return reply.code(204).send();
      },
    });
  }

  api.post(
    '/workspaces/:workspace/usage',
    { schema: { params: WorkspaceParam, body: Type.Optional(UsageBody) } },
    async (request, reply) => {
      const { store } = authOf(request);
      const workspace = workspaceOf(request);
      // Reporting use moves the workspace's deadline: the reference asks for `update` on it.
      store.workspaces.authorize('update', workspace);
      await recordWorkspaceUsage(store, context.store.pubsub, workspace, context.store.clock.now(), context.store.features);
      const body = request.body ?? {};
      const agentId = body.agent_id === NIL_UUID ? '' : (body.agent_id ?? '');
      const appName = body.app_name ?? '';
      if (agentId === '' && appName === '') return reply.code(204).send();
      if (agentId === '' || appName === '') {
        const [field, other] = agentId === '' ? ['agent_id', 'app_name'] : ['app_name', 'agent_id'];
        throw new HttpProblem(400, 'Invalid request.', { validations: [{ field, detail: `must be set when ${other} is set` }] });
      }
      if (!isUuid(agentId))
        throw new HttpProblem(400, 'Invalid request.', { validations: [{ field: 'agent_id', detail: 'must be a UUID' }] });
      if (!USAGE_APPS.includes(appName)) {
        throw new HttpProblem(400, 'Invalid request.', {
          validations: [{ field: 'app_name', detail: `must be one of ${USAGE_APPS.join(', ')}` }],
        });
      }
      const agent = await store.workspaceAgents.get(agentId).catch((error: unknown) => {
        if (isNotFoundOrHidden(error)) return undefined;
        throw error;
      });
      if (!agent || agent.workspace.id !== workspace.id) throw new NotFoundError('workspace agent');
      // A named kind of session is also a minute of that use for insights.
      await recordUsageMinute(store, workspace, [{ kind: USAGE_SESSION_KINDS[appName] ?? 'ssh' }], context.store.clock.now());
      return reply.code(204).send();
    },
  );

  api.get(
    '/workspaces/:workspace/port-share',
    { schema: { params: WorkspaceParam, response: { 200: Type.Object({ shares: Type.Array(PortShare) }) } } },
    async (request) => {
      const workspace = workspaceOf(request);
      const shares = await authOf(request).store.portShares.list(workspace);
      return { shares: shares.map(toWirePortShare) };
    },
  );

  api.post(
    '/workspaces/:workspace/port-share',
    {
      schema: {
        params: WorkspaceParam,
        body: Type.Object({
          agent_name: Type.String(),
          port: Type.Integer(),
          share_level: Type.String(),
          protocol: Type.Optional(Type.String()),
        }),
        response: { 200: PortShare },
      },
    },
    async (request) => {
      const { store } = authOf(request);
      const workspace = workspaceOf(request);
      store.workspaces.authorize('update', workspace);
      const { body } = request;
      const template = await store.workspaces.template(workspace);
      const agentNames = (await store.workspaceBuilds.latestAgents(workspace)).map((agent) => agent.name);
      const { level, protocol } = checkPortShare(body, template.max_port_share_level, agentNames);
      const share = { workspace_id: workspace.id, agent_name: body.agent_name, port: body.port, share_level: level, protocol };
      await store.portShares.upsert(workspace, share);
      return share;
    },
  );

  api.delete(
    '/workspaces/:workspace/port-share',
    {
      schema: {
        params: WorkspaceParam,
        // A port beyond 65535 names no share; bounded so the database is never asked to compare one.
        body: Type.Object({ agent_name: Type.String(), port: Type.Integer({ minimum: 0, maximum: 65535 }) }),
      },
    },
    async (request, reply) => {
      const workspace = workspaceOf(request);
      const { body } = request;
      if (!(await authOf(request).store.portShares.delete(workspace, body.agent_name, body.port)))
        throw new HttpProblem(404, 'Port share not found.');
      return reply.code(200).send();
    },
  );

  // Server-sent events: the workspace as `data` on connect and after every change, `ping` in between.
  api.get('/workspaces/:workspace/watch', { schema: { params: WorkspaceParam } }, async (request, reply) => {
    const workspace = workspaceOf(request);
    // The stream outlives the handler: fastify must not answer on its own.
    reply.hijack();
    sseStart(reply);
    trackEventStream(context, request, reply, (auth) => auth.store.workspaces.get(workspace.id));
    watch(
      watches,
      request,
      workspace,
      (event, json) => sseWriteJson(reply, event, json),
      (stop) => request.raw.on('close', stop),
    );
  });

  workspaceListWatchRoute(app, context, watches);

  httpOrWebSocketRoute(app, {
    url: '/workspaces/:workspace/watch-ws',
    schema: { params: WorkspaceParam },
    handler: async (request) => {
      workspaceOf(request);
      throw new HttpProblem(400, 'This endpoint is a WebSocket.', { detail: 'Use /watch for server-sent events over plain HTTP.' });
    },
    wsHandler: async (socket: WebSocket, request: FastifyRequest) => {
      const workspace = workspaceOf(request);
      trackWebSocket(context, request, socket, (auth) => auth.store.workspaces.get(workspace.id));
      watch(
        watches,
        request,
        workspace,
        (event, json) => {
          // The message is {"type", "data"} with the answer's JSON as it is, not parsed again.
          if (socket.readyState === socket.OPEN)
            socket.send(json === undefined ? `{"type":"${event}"}` : `{"type":"${event}","data":${json}}`);
        },
        (stop) => socket.on('close', stop),
      );
    },
  });
}

/**
 * One watch stream: the workspace on connect and after every change, from the hub, which re-reads
 * it as the caller's own subject; `ping` in between.
 */
function watch(
  hub: WorkspaceWatchHub<WatchMemo>,
  request: FastifyRequest,
  workspace: WorkspaceRow,
  send: (event: 'data' | 'ping' | 'error', json?: string) => void,
  onClose: (stop: () => void) => void,
): void {
  const stop = hub.watch(workspace.id, authOf(request).store, send);
  const ping = setInterval(() => send('ping'), SSE_PING_MS);
  ping.unref();
  onClose(() => {
    clearInterval(ping);
    stop();
  });
}

/** What a watch re-read keeps of a workspace: the rows it answered from, and whether their build had ended. */
interface WatchMemo {
  readonly row: WorkspaceWithLatestBuild;
  readonly settled: boolean;
}

function watchMemo({ workspace, latestBuild }: WorkspaceWithLatestBuild, answer: Workspace | undefined): WatchMemo {
  return {
    // Without its state, which can be large and which reading the details does not need.
    row: { workspace, latestBuild: latestBuild && { ...latestBuild, provisioner_state: null } },
    settled: answer?.latest_build.job.completed_at != null,
  };
}

/**
 * The details of the builds read last, read side by side with the workspaces rather than after
 * them, when every one of those builds was still running: its next events (the job taken, its end)
 * change the build, not which build is the latest. Undefined when not worth it, or not possible.
 */
function readAhead(
  store: AuthorizedStore,
  ids: readonly string[],
  previous: ReadonlyMap<string, WatchMemo>,
): { readonly rows: readonly WorkspaceWithLatestBuild[]; readonly details: Promise<WorkspaceDetails | undefined> } | undefined {
  const memos = ids.map((id) => previous.get(id));
  if (!memos.every(readsAhead)) return undefined;
  const rows = memos.flatMap((memo) => (memo ? [memo.row] : []));
  const details = store.workspaces
    .listDetails(
      rows.map((row) => row.workspace),
      rows.flatMap((row) => (row.latestBuild ? [row.latestBuild] : [])),
    )
    // Read for rows that may be out of date: a refusal here only means reading after all.
    .catch(() => undefined);
  return { rows, details };
}

/** Whether a re-read after `memo` reads ahead: when the build it showed was still running. */
function readsAhead(memo: WatchMemo | undefined): boolean {
  return memo !== undefined && !memo.settled && memo.row.latestBuild !== undefined;
}

/** Whether `now` are the same workspaces with the same latest builds as `before`. */
function sameLatestBuilds(now: readonly WorkspaceWithLatestBuild[], before: readonly WorkspaceWithLatestBuild[]): boolean {
  if (now.length !== before.length) return false;
  const builds = new Map(before.map((row) => [row.workspace.id, row.latestBuild?.id]));
  return now.every((row) => row.latestBuild !== undefined && builds.get(row.workspace.id) === row.latestBuild.id);
}
