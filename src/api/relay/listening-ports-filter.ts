import { manifestApps, readDefinition } from '../../domain/agent-definition.js';
import type { ListeningPort } from '../../sdk/wire/index.js';
import type { AgentWithOwners } from '../../store/rows.js';

/** Ports below this are never shown, as in the reference. */
const MINIMUM_PORT = 9;
/** Well-known service ports the reference leaves out of the list: nobody forwards to these to preview a web app. */
const IGNORED_PORTS: ReadonlySet<number> = new Set([
  20, 21, 22, 23, 25, 53, 110, 143, 179, 389, 636, 465, 587, 989, 990, 993, 995, 3306, 3389, 5432, 27017, 27018, 27019, 28017,
]);
const LOCAL_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '0.0.0.0', '[::1]', '[::]']);

/**
 * What the agent found listening, minus what a user would not want offered: low ports, well-known
 * services, and ports that one of the agent's apps already serves.
 */
export function filterListeningPorts(ports: readonly ListeningPort[], found: AgentWithOwners): ListeningPort[] {
  const appPorts = new Set(manifestApps(found.agent.id, readDefinition(found.agent.definition)).flatMap((app) => localPort(app.url) ?? []));
  return ports.filter((entry) => entry.port >= MINIMUM_PORT && !IGNORED_PORTS.has(entry.port) && !appPorts.has(entry.port));
}

function localPort(url: string): number | undefined {
  try {
    const parsed = new URL(url);
    if (!LOCAL_HOSTS.has(parsed.hostname)) return undefined;
    if (parsed.port) return Number(parsed.port);
    return parsed.protocol === 'https:' ? 443 : parsed.protocol === 'http:' ? 80 : undefined;
  } catch {
    return undefined;
  }
}
