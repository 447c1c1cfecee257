import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { relayMap } from '../../domain/relay-map.js';
import type { AuthorizedStore } from '../../store/authorized-store.js';
import type { ApiContext } from '../context.js';
import { denyFraming } from '../frame-protection.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { forbidden } from '../problems.js';
import type { RelaySnapshot } from '../relay/agent-relay.js';

/**
 * `/debug/coordinator` and `/debug/tailnet`: what this daemon's relay holds right now, as small
 * HTML pages for operators (the reference renders its coordinator and tailnet state the same way).
 */
export async function debugRelayRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const guard = (request: FastifyRequest): void => {
    if (!authOf(request).store.can('read', { type: 'debug_info' })) throw forbidden();
  };

  app.get('/debug/coordinator', { schema: { hide: true } }, async (request, reply) => {
    guard(request);
    const snapshot = context.relay.snapshot();
    const names = await agentNames(authOf(request).store, snapshot);
    const agents = snapshot.agents.map((agent) => [names.get(agent.agentId) ?? '', agent.agentId, agent.connectedAt.toISOString()]);
    const streams = snapshot.streams.map((stream) => [
      stream.id,
      names.get(stream.agentId) ?? stream.agentId,
      describeTarget(stream.target),
      stream.openedAt.toISOString(),
      String(stream.toAgent),
      String(stream.toClient),
    ]);
    return html(reply, 'Relay coordinator', [
      `<p>Agents connected to this daemon: ${snapshot.agents.length}. Streams open: ${snapshot.streams.length}; waiting for an agent: ${snapshot.pendingStreams}. Questions waiting for an answer: ${snapshot.pendingRequests}.</p>`,
      table('Agents', ['workspace.agent', 'agent id', 'connected at'], agents),
      table('Streams', ['stream', 'agent', 'target', 'opened at', 'bytes to agent', 'bytes to client'], streams),
    ]);
  });

  app.get('/debug/tailnet', { schema: { hide: true } }, async (request, reply) => {
    guard(request);
    const map = relayMap(context.values.accessUrl);
    const nodes = Object.values(map.regions).flatMap((region) =>
      region.nodes.map((node) => [
        String(region.regionID),
        region.regionName,
        node.name,
        `${node.hostName}:${node.derpport}`,
        node.forceHTTP ? 'http' : 'https',
      ]),
    );
    return html(reply, 'Relay network', [
      '<p>Cove relays every connection through the daemon over WebSockets: no WireGuard, no STUN, no direct connections (docs/relay-protocol.md).</p>',
      table('Relay regions', ['region', 'name', 'node', 'address', 'scheme'], nodes),
      `<pre>${escape(JSON.stringify(map, null, 2))}</pre>`,
    ]);
  });
}

/** `owner/workspace.agent` for the agents in the snapshot whose workspaces the caller may read, by agent id. */
async function agentNames(store: AuthorizedStore, snapshot: RelaySnapshot): Promise<Map<string, string>> {
  const ids = [...new Set([...snapshot.agents.map((a) => a.agentId), ...snapshot.streams.map((s) => s.agentId)])];
  const labels = await store.workspaceAgents.labels(ids);
  return new Map(labels.map((label) => [label.id, `${label.owner}/${label.workspace}.${label.agent}`]));
}

function describeTarget(target: RelaySnapshot['streams'][number]['target']): string {
  switch (target.kind) {
    case 'tcp':
    case 'udp':
      return `${target.kind} port ${target.port}`;
    case 'pty':
      return `terminal ${target.reconnect}`;
    default:
      return target.kind;
  }
}

function table(title: string, headings: readonly string[], rows: readonly (readonly string[])[]): string {
  const head = headings.map((heading) => `<th>${escape(heading)}</th>`).join('');
  const body =
    rows.length === 0
      ? `<tr><td colspan="${headings.length}">none</td></tr>`
      : rows.map((row) => `<tr>${row.map((cell) => `<td>${escape(cell)}</td>`).join('')}</tr>`).join('\n');
  return `<h2>${escape(title)}</h2>\n<table>\n<tr>${head}</tr>\n${body}\n</table>`;
}

function html(reply: FastifyReply, title: string, sections: readonly string[]): FastifyReply {
  const page = `<!doctype html>\n<html><head><meta charset="utf-8"><title>${escape(title)}</title></head>\n<body><h1>${escape(title)}</h1>\n${sections.join('\n')}\n</body></html>\n`;
  denyFraming(reply);
  return reply.type('text/html; charset=utf-8').send(page);
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
