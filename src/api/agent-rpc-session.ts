import type { FastifyBaseLogger } from 'fastify';
import type { WebSocket } from 'ws';
import { readProtocolMessage } from './protocol-message.js';
import { buildManifest, manifestApps, readDefinition } from '../domain/agent-definition.js';
import { agentMetadataChannel, boundedResult } from '../domain/agent-metadata.js';
import { AGENT_INACTIVE_TIMEOUT_SECONDS, lifecycleTimestamps } from '../domain/agent-status.js';
import { withTrafficWindow } from '../domain/deployment-stats.js';
import { workspaceEventsChannel } from '../domain/workspace-events.js';
import { openSessionKinds, recordUsageMinute } from '../domain/usage-minutes.js';
import { recordWorkspaceUsage } from '../domain/workspace-usage.js';
import { SYSTEM_SUBJECTS } from '../rbac/system-subjects.js';
import { isNotFoundOrHidden } from '../lib/errors.js';
import { AgentMessage, type DaemonToAgentMessage } from '../sdk/wire/index.js';
import { parseJson } from '../store/json-column.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { AgentWithOwners } from '../store/rows.js';
import type { StoreHandle } from '../store/store.js';
import type { AgentAuth } from './plugins/agent-authentication.js';
import type { AgentRelay } from './relay/agent-relay.js';

/** How often the socket is pinged and the agent's `last_connected_at` refreshed on the pong. */
const HEARTBEAT_MS = 15_000;
/** Pongs between checks that the agent's build is still current, besides the build events. */
const LATEST_CHECK_EVERY_PONGS = 4;
/** Close code when the agent's build is no longer the workspace's latest. */
export const CLOSE_NOT_LATEST_BUILD = 4000;

const SUBSYSTEMS = new Set(['envbox', 'envbuilder', 'exectrace']);
const SEMVER = /^v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

type Message<T extends AgentMessage['type']> = Extract<AgentMessage, { type: T }>;

/**
 * One agent's rpc WebSocket. The agent acts only on its own rows, which its token already proved,
 * so the session reads and writes through the agent's own store (scoped to its workspace's owner)
 * rather than a user's; `store` serves the clock, the pubsub and recording use.
 * Messages are handled one at a time, in order; every change publishes the workspace event.
 */
export class AgentRpcSession {
  #queue = Promise.resolve();
  #heartbeat: NodeJS.Timeout | undefined;
  #lastPong = Date.now();
  #closed = false;
  #pongs = 0;
  #stopWatching: (() => Promise<void>) | undefined;
  #detachRelay: (() => void) | undefined;
  readonly #agentId: string;
  readonly #workspaceId: string;
  private readonly found: AgentWithOwners;
  private readonly agentStore: AuthorizedStore;

  constructor(
    private readonly socket: WebSocket,
    private readonly store: StoreHandle,
    private readonly relay: AgentRelay,
    auth: AgentAuth,
    private readonly apiVersion: string,
    private readonly log: FastifyBaseLogger,
  ) {
    this.found = auth.found;
    this.agentStore = auth.store;
    this.#agentId = auth.found.agent.id;
    this.#workspaceId = auth.found.workspace.id;
  }

  /** Records the connection, sends the manifest and starts serving the agent's messages. */
  async start(): Promise<void> {
    this.socket.on('message', (data, isBinary) => {
      if (isBinary) return this.#send({ type: 'error', message: 'messages are JSON text frames' });
      this.#enqueue(() => this.#handle(data.toString()));
    });
    this.socket.on('pong', () => {
      this.#lastPong = Date.now();
      this.#enqueue(() => this.#touch());
    });
    this.socket.on('close', () => void this.#close());
    const now = this.store.nowIso();
    await this.agentStore.workspaceAgents.updateReport(this.found, {
      first_connected_at: this.found.agent.first_connected_at ?? now,
      last_connected_at: now,
      disconnected_at: null,
      api_version: this.apiVersion,
      relay_url: this.relay.localUrl,
      updated_at: now,
    });
    await this.#publish('agent_connected');
    // A new build (or a delete) makes this agent stale at once, not only at the next heartbeat.
    this.#stopWatching = await this.store.pubsub.subscribe(workspaceEventsChannel(this.#workspaceId), (what) => {
      // Only builds change which build is the latest; agents' own reports are the bulk of the events.
      if (what === 'build') this.#enqueue(() => this.#checkLatest());
    });
    this.#send({ type: 'manifest', manifest: await this.#manifest() });
    if (!this.#closed) this.#detachRelay = this.relay.attach(this.#agentId, { send: (message) => this.#send(message) });
    this.#heartbeat = setInterval(() => this.#beat(), HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  async #manifest() {
    const owner = await this.agentStore.users.get(this.found.workspace.owner_id).catch((error: unknown) => {
      if (isNotFoundOrHidden(error)) return undefined;
      throw error;
    });
    return buildManifest({
      agentId: this.#agentId,
      definition: readDefinition(this.found.agent.definition),
      agentName: this.found.agent.name,
      ownerUsername: owner?.username ?? '',
      workspaceId: this.#workspaceId,
      workspaceName: this.found.workspace.name,
    });
  }

  #beat(): void {
    if (Date.now() - this.#lastPong > AGENT_INACTIVE_TIMEOUT_SECONDS * 1000) {
      this.#closeSocket(1001, 'ping timeout');
      return;
    }
    if (this.socket.readyState === this.socket.OPEN) this.socket.ping();
  }

  /**
   * A pong: the agent is alive now. Every few pongs it is also checked against the latest build,
   * in case a build event was missed (a replica's pubsub reconnecting).
   */
  async #touch(): Promise<void> {
    const now = this.store.nowIso();
    await this.agentStore.workspaceAgents.updateReport(this.found, { last_connected_at: now, disconnected_at: null });
    this.#pongs += 1;
    if (this.#pongs % LATEST_CHECK_EVERY_PONGS === 0) await this.#checkLatest();
  }

  async #checkLatest(): Promise<void> {
    if (this.#closed) return;
    if (!(await this.agentStore.workspaceAgents.isBuildCurrent(this.found))) {
      this.#closeSocket(CLOSE_NOT_LATEST_BUILD, 'the agent belongs to a build that is no longer the latest');
    }
  }

  async #handle(text: string): Promise<void> {
    const read = readProtocolMessage(AgentMessage, text);
    if ('problem' in read) return this.#send({ type: 'error', message: read.problem });
    const { message } = read;
    switch (message.type) {
      case 'startup':
        return this.#startup(message);
      case 'lifecycle':
        return this.#lifecycle(message);
      case 'app_health':
        return this.#appHealth(message);
      case 'stats':
        return this.#stats(message);
      case 'script_completed':
        return this.#scriptCompleted(message);
      case 'metadata':
        return this.#metadata(message);
      case 'response':
        return this.relay.answer(this.#agentId, message);
      case 'stream_exit':
        return this.relay.reportExit(this.#agentId, message.stream_id, message.exit_code);
    }
  }

  async #startup(message: Message<'startup'>): Promise<void> {
    if (!SEMVER.test(message.version))
      return this.#send({ type: 'error', message: `startup: version "${message.version}" is not a semantic version` });
    const unknown = message.subsystems.filter((s) => !SUBSYSTEMS.has(s));
    if (unknown.length > 0) return this.#send({ type: 'error', message: `startup: unknown subsystems: ${unknown.join(', ')}` });
    await this.agentStore.workspaceAgents.updateReport(this.found, {
      version: message.version,
      expanded_directory: message.expanded_directory,
      subsystems: JSON.stringify([...new Set(message.subsystems)].sort()),
      updated_at: this.store.nowIso(),
    });
    await this.#publish('agent_startup');
  }

  async #lifecycle(message: Message<'lifecycle'>): Promise<void> {
    const current = await this.agentStore.workspaceAgents.getRow(this.found);
    if (!current) return;
    const parsed = Date.parse(message.changed_at);
    const changedAt = Number.isNaN(parsed) ? this.store.nowIso() : new Date(parsed).toISOString();
    await this.agentStore.workspaceAgents.updateReport(this.found, {
      lifecycle_state: message.state,
      ...lifecycleTimestamps(message.state, changedAt, current),
      updated_at: this.store.nowIso(),
    });
    await this.#publish('agent_lifecycle');
  }

  async #appHealth(message: Message<'app_health'>): Promise<void> {
    const known = new Set(manifestApps(this.#agentId, readDefinition(this.found.agent.definition)).map((app) => app.id));
    const unknown = Object.keys(message.apps).filter((id) => !known.has(id));
    if (unknown.length > 0) return this.#send({ type: 'error', message: `app_health: not apps of this agent: ${unknown.join(', ')}` });
    const current = await this.agentStore.workspaceAgents.getRow(this.found);
    const before = parseJson<Record<string, string>>(current?.app_health, {});
    const after = { ...before, ...message.apps };
    if (JSON.stringify(before) === JSON.stringify(after)) return;
    await this.agentStore.workspaceAgents.updateReport(this.found, { app_health: JSON.stringify(after), updated_at: this.store.nowIso() });
    await this.#publish('agent_app_health');
  }

  async #stats(message: Message<'stats'>): Promise<void> {
    const now = this.store.nowIso();
    const { type: _type, ...stats } = message;
    const stored = await this.agentStore.workspaceAgents.getRow(this.found);
    const report = withTrafficWindow(stored?.last_stats, stats, new Date(now));
    await this.agentStore.workspaceAgents.updateReport(this.found, { last_stats: JSON.stringify(report), last_stats_at: now });
    const open = openSessionKinds(stats);
    // As the reference: an open session is use, which marks the workspace used and moves its deadline.
    if (open.length === 0) return;
    // An agent's report is no user's request: its use is recorded as the deployment's own work.
    const recorder = this.store.as(SYSTEM_SUBJECTS.workspaceUsage);
    // Read again: the schedule may have changed since the agent connected.
    const workspace = await this.agentStore.workspaces.get(this.#workspaceId);
    const at = this.store.clock.now();
    await recordUsageMinute(
      recorder,
      workspace,
      open.map((kind) => ({ kind })),
      at,
      stats.connection_median_latency_ms,
    );
    await recordWorkspaceUsage(recorder, this.store.pubsub, workspace, at, this.store.features);
  }

  async #scriptCompleted(message: Message<'script_completed'>): Promise<void> {
    await this.agentStore.workspaceAgents.insertScriptTiming(this.found, {
      script_id: message.script_id,
      stage: message.stage,
      status: message.status,
      exit_code: Math.trunc(message.exit_code),
      started_at: message.started_at,
      ended_at: message.ended_at,
    });
  }

  /**
   * Keeps the latest result of each of the agent's metadata items and tells the watchers which
   * changed. The time of collection is the daemon's, less the age the agent measured, so an agent's
   * clock being off does not age its results. Keys the template does not declare are dropped.
   */
  async #metadata(message: Message<'metadata'>): Promise<void> {
    const declared = new Set((readDefinition(this.found.agent.definition).metadata ?? []).map((item) => item.key));
    const latest = new Map(message.results.filter((result) => declared.has(result.key)).map((result) => [result.key, result]));
    if (latest.size === 0) return;
    const now = this.store.clock.now().getTime();
    const results = [...latest.values()].map((result) =>
      boundedResult({
        key: result.key,
        value: result.value,
        error: result.error,
        collected_at: new Date(now - result.age * 1000).toISOString(),
      }),
    );
    await this.agentStore.workspaceAgents.recordMetadata(this.found, results);
    await this.store.pubsub.publish(agentMetadataChannel(this.#agentId), [...latest.keys()].join(',').slice(0, 4000));
  }

  #enqueue(step: () => Promise<void>): void {
    this.#queue = this.#queue.then(step).catch((error: unknown) => {
      this.log.error({ err: error, agent: this.#agentId }, 'workspace agent message failed');
      this.#send({ type: 'error', message: 'internal error handling the message' });
    });
  }

  #send(message: DaemonToAgentMessage): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(message));
  }

  async #publish(what: string): Promise<void> {
    await this.store.pubsub.publish(workspaceEventsChannel(this.#workspaceId), what);
  }

  #closeSocket(code: number, reason: string): void {
    if (this.socket.readyState === this.socket.OPEN || this.socket.readyState === this.socket.CONNECTING) this.socket.close(code, reason);
  }

  async #close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#heartbeat);
    this.#detachRelay?.();
    await this.#stopWatching?.();
    // After the messages already received, so a last lifecycle report is not lost.
    this.#enqueue(async () => {
      // Unless the agent has already reconnected through another replica, which now holds it.
      await this.agentStore.workspaceAgents.markDisconnected(this.found, this.relay.localUrl);
      await this.#publish('agent_disconnected');
    });
    await this.#queue;
  }
}
