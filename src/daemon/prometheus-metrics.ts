import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import type { ApiObserver } from '../api/api-observer.js';
import type { AgentRelay } from '../api/relay/agent-relay.js';
import { answerClientError, type HttpServerTimeouts } from '../api/http-timeouts.js';
import { jobStatus } from '../domain/provisioner-job-status.js';
import { buildStatus } from '../domain/workspace-builds.js';
import { SYSTEM_SUBJECTS } from '../rbac/index.js';
import type { Store } from '../store/store.js';
import { splitHostPort } from './host-port.js';

/** Every workspace status the gauge reports, so a status with no workspaces shows 0 rather than vanishing. */
const WORKSPACE_STATUSES = [
  'pending',
  'starting',
  'running',
  'stopping',
  'stopped',
  'deleting',
  'deleted',
  'canceling',
  'canceled',
  'failed',
];

/** The metrics of one daemon: what the API reports to, and the listener Prometheus scrapes. */
export interface PrometheusMetrics {
  readonly observer: ApiObserver;
  /** Starts the listener; resolves with its base URL (`http://127.0.0.1:2112`). */
  listen(address: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Builds the registry: HTTP requests, workspaces by status, builds and their durations,
 * provisioner jobs, connected agents, relay streams and bytes, workspace watch streams, database
 * query latency and the process's own metrics. Counts of rows are taken when Prometheus scrapes,
 * by a few SQL counts; events (requests, finished jobs, queries, watch streams) are counted as they
 * happen. prom-client is loaded only here, so a daemon without metrics never loads it.
 */
export async function createPrometheusMetrics(options: {
  readonly store: Store;
  readonly relay: AgentRelay;
  readonly logger: Logger;
  /** The API's request timeouts: the listener is as open to slow clients as the API is. */
  readonly timeouts: HttpServerTimeouts;
}): Promise<PrometheusMetrics> {
  const client = await import('prom-client');
  const { store, relay } = options;
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'cove_' });
  // A scrape is nobody's request: counting rows across the deployment needs its own minimal subject.
  const collector = store.as(SYSTEM_SUBJECTS.metricsCollector);

  const requests = new client.Counter({
    name: 'cove_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status code.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const requestDuration = new client.Histogram({
    name: 'cove_http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by route pattern, method and status code.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  new client.Gauge({
    name: 'cove_workspaces',
    help: 'Live workspaces by the status of their latest build.',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const counts = new Map(WORKSPACE_STATUSES.map((status) => [status, 0]));
      for (const group of await collector.deployment.countWorkspacesByLatestBuild()) {
        const status = buildStatus(
          jobStatus({
            started_at: group.started ? 'yes' : null,
            completed_at: group.completed ? 'yes' : null,
            canceled_at: group.canceled ? 'yes' : null,
            error: group.failed ? 'yes' : '',
          }),
          group.transition,
        );
        counts.set(status, (counts.get(status) ?? 0) + group.count);
      }
      for (const [status, count] of counts) this.set({ status }, count);
    },
  });
  const builds = new client.Counter({
    name: 'cove_workspace_builds_total',
    help: 'Workspace builds finished, by outcome (succeeded, failed, canceled).',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const jobDuration = new client.Histogram({
    name: 'cove_provisioner_job_duration_seconds',
    help: 'Time from a provisioner daemon taking a job to its end, by job type and outcome.',
    labelNames: ['type', 'status'] as const,
    buckets: [0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600],
    registers: [registry],
  });
  new client.Gauge({
    name: 'cove_provisioner_jobs',
    help: 'Provisioner jobs waiting for a daemon (queued) and being worked on (running).',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const { queued, running } = await collector.deployment.countActiveProvisionerJobs();
      this.set({ state: 'queued' }, queued);
      this.set({ state: 'running' }, running);
    },
  });
  new client.Gauge({
    name: 'cove_agents_connected',
    help: 'Workspace agents connected to this daemon.',
    registers: [registry],
    collect() {
      this.set(relay.connectedAgents);
    },
  });
  new client.Gauge({
    name: 'cove_relay_streams_open',
    help: 'Streams this daemon relays between clients and agents now.',
    registers: [registry],
    collect() {
      this.set(relay.openStreams);
    },
  });
  new client.Counter({
    name: 'cove_relay_streams_total',
    help: 'Streams this daemon has relayed between clients and agents.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(relay.totals.streams);
    },
  });
  new client.Counter({
    name: 'cove_relay_bytes_total',
    help: 'Bytes relayed between clients and agents, by direction.',
    labelNames: ['direction'] as const,
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ direction: 'to_agent' }, relay.totals.bytesToAgent);
      this.inc({ direction: 'to_client' }, relay.totals.bytesToClient);
    },
  });
  const queryDuration = new client.Histogram({
    name: 'cove_database_query_duration_seconds',
    help: 'Time the database took to answer queries, by outcome.',
    labelNames: ['outcome'] as const,
    buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
    registers: [registry],
  });
  const watchers = new client.Gauge({
    name: 'cove_workspace_watchers',
    help: 'Workspace watch streams (server-sent events and WebSocket) open on this daemon.',
    registers: [registry],
  });
  const watchGroups = new client.Gauge({
    name: 'cove_workspace_watch_groups',
    help: 'Shared re-reads serving the workspace watch streams: one per watched workspace and caller.',
    registers: [registry],
  });
  store.onQueryDuration = (ms, failed) => queryDuration.observe({ outcome: failed ? 'error' : 'ok' }, ms / 1000);

  const observer: ApiObserver = {
    requestDone(route, method, status, seconds) {
      const labels = { route, method, status: String(status) };
      requests.inc(labels);
      requestDuration.observe(labels, seconds);
    },
    jobFinished(job) {
      const status = jobStatus(job);
      if (job.type === 'workspace_build') builds.inc({ status });
      if (job.started_at && job.completed_at) {
        const seconds = (Date.parse(job.completed_at) - Date.parse(job.started_at)) / 1000;
        if (seconds >= 0) jobDuration.observe({ type: job.type, status }, seconds);
      }
    },
    workspaceWatches(groups, open) {
      watchGroups.set(groups);
      watchers.set(open);
    },
  };

  let server: Server | undefined;
  return {
    observer,
    async listen(address) {
      const [host, port] = splitHostPort(address, '--prometheus-address');
      server = createServer({ ...options.timeouts }, (request, response) => {
        if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
          response.writeHead(404, { 'content-type': 'text/plain' }).end('Metrics are at /metrics.\n');
          return;
        }
        registry.metrics().then(
          (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
          (error: unknown) => {
            options.logger.error({ err: error }, 'collecting metrics failed');
            response.writeHead(500, { 'content-type': 'text/plain' }).end('Collecting metrics failed.\n');
          },
        );
      });
      server.on('clientError', answerClientError);
      const listening = server;
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(port, host, () => resolve());
      });
      const bound = listening.address();
      const boundPort = typeof bound === 'object' && bound ? bound.port : port;
      return `http://${host.includes(':') ? `[${host}]` : host}:${boundPort}`;
    },
    async close() {
      store.onQueryDuration = undefined;
      const open = server;
      server = undefined;
      if (!open) return;
      const closed = new Promise<void>((resolve) => open.close(() => resolve()));
      // A scrape is short and can be asked again: none in flight holds the daemon's shutdown.
      open.closeAllConnections();
      await closed;
    },
  };
}
