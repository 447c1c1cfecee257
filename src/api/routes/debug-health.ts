import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { HttpProblem } from '../../lib/errors.js';
import { siteObject } from '../../rbac/index.js';
import { HEALTH_SECTIONS, HealthReport, HealthSettings, RelayCloseCode, type HealthSection } from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { withDismissals } from '../health/health-checker.js';
import { HEALTH_PROBE_HEADER } from '../health/probe-socket.js';
import { authenticateRequest, authOf, requireAuthentication } from '../plugins/authentication.js';
import { forbidden } from '../problems.js';
import { RelayStreamError } from '../relay/agent-relay.js';
import { pipeSockets } from '../relay/pipe-sockets.js';

/** Reading the health report and its settings is reading the deployment's configuration: owners and auditors. */
const READ_HEALTH = siteObject('deployment_config');

/** `/debug/health` and its settings, for operators. */
export async function debugHealthRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/debug/health',
    { schema: { querystring: Type.Object({ force: Type.Optional(Type.Boolean()) }), response: { 200: HealthReport } } },
    async (request) => {
      const { store } = authOf(request);
      if (!store.can('read', READ_HEALTH)) throw forbidden();
      const report = await withinDeadline(context.health.report(request.query.force === true));
      // With the database down the report is what an operator needs most; the dismissals are then unknown.
      const dismissed = report.database.reachable ? await store.deployment.listDismissedHealthChecks() : [];
      return withDismissals(report, sectionNames(dismissed));
    },
  );

  api.get('/debug/health/settings', { schema: { response: { 200: HealthSettings } } }, async (request) => {
    const { store } = authOf(request);
    if (!store.can('read', READ_HEALTH)) throw forbidden();
    return { dismissed_healthchecks: sectionNames(await store.deployment.listDismissedHealthChecks()) };
  });

  api.put('/debug/health/settings', { schema: { body: HealthSettings, response: { 200: HealthSettings } } }, async (request) => {
    const { store } = authOf(request);
    if (!store.can('update', siteObject('deployment_config'))) throw forbidden();
    await store.deployment.setDismissedHealthChecks(request.body.dismissed_healthchecks);
    return { dismissed_healthchecks: sectionNames(await store.deployment.listDismissedHealthChecks()) };
  });
}

/**
 * The endpoints the health checks probe through the access URL. They carry the daemon's own
 * in-process probe key, not a session; the echo socket also lets in those who may read the report.
 */
export async function healthProbeRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const isProbe = (request: FastifyRequest) => context.health.isProbe(request.headers[HEALTH_PROBE_HEADER]);
  const probeOnly = async (request: FastifyRequest): Promise<void> => {
    if (isProbe(request)) return;
    await authenticateRequest(context, request);
    throw new HttpProblem(403, 'Only the health check of this daemon opens this endpoint.');
  };
  const probeOrReader = async (request: FastifyRequest): Promise<void> => {
    if (isProbe(request)) return;
    const { subject } = await authenticateRequest(context, request);
    if (!context.store.as(subject).can('read', READ_HEALTH)) throw forbidden();
  };

  // Echoes every message: what the Websocket section of the report dials.
  api.get('/debug/ws', { websocket: true, preHandler: probeOrReader }, async (socket) => {
    socket.on('message', (data, isBinary) => socket.send(data, { binary: isBinary }));
  });

  // The client end of the relay check: joined by the relay to the stand-in agent, which echoes.
  api.get('/debug/relay-probe', { websocket: true, preHandler: probeOnly }, async (socket) => relayToProbe(context, socket));

  // The stand-in agent dials back here for the stream it was asked to open, as an agent dials `/workspaceagents/me/relay`.
  api.get(
    '/debug/relay-probe/agent',
    { websocket: true, preHandler: probeOnly, schema: { querystring: Type.Object({ stream_id: Type.String({ format: 'uuid' }) }) } },
    async (socket, request) => {
      if (!context.relay.acceptStream(context.health.relayProbe.agentId, request.query.stream_id, socket))
        socket.close(4404, 'no such stream is waiting');
    },
  );
}

async function relayToProbe(context: ApiContext, socket: WebSocket): Promise<void> {
  socket.pause();
  socket.on('error', () => undefined);
  try {
    const stream = await context.relay.openStream(context.health.relayProbe.agentId, { kind: 'echo' });
    if (socket.readyState !== socket.OPEN) {
      stream.socket.resume();
      stream.socket.close(1000, 'the client went away');
      return;
    }
    socket.send(JSON.stringify({ type: 'ready', stream_id: stream.id }));
    await pipeSockets(socket, stream);
  } catch (error) {
    if (socket.readyState !== socket.OPEN) return;
    socket.resume();
    socket.close(error instanceof RelayStreamError ? error.code : RelayCloseCode.agentGone, (error as Error).message.slice(0, 120));
  }
}

/** How long a request waits for a run of the checks, as the reference waits. */
const REPORT_WAIT_MS = 30_000;

/** The report, or the reference's 404 when the checks take longer than a request waits; they go on running. */
async function withinDeadline(report: Promise<HealthReport>): Promise<HealthReport> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new HttpProblem(404, 'Healthcheck is in progress and did not complete in time. Try again in a few seconds.')),
      REPORT_WAIT_MS,
    );
  });
  try {
    return await Promise.race([report, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Stored names that this build knows as sections (a newer build may have stored others). */
function sectionNames(stored: readonly string[]): HealthSection[] {
  return stored.filter((name): name is HealthSection => (HEALTH_SECTIONS as readonly string[]).includes(name));
}
