import { isIP } from 'node:net';
import type { WorkspaceAgentContainer } from '../../sdk/wire/relay-protocol.js';

/** The part of one `docker inspect` entry the agent reads. */
interface DockerInspectEntry {
  readonly Id?: string;
  readonly Name?: string;
  readonly Created?: string;
  readonly Config?: { readonly Image?: string; readonly Labels?: Record<string, string> | null } | null;
  readonly State?: { readonly Running?: boolean; readonly ExitCode?: number; readonly Error?: string } | null;
  readonly Mounts?: readonly { readonly Source?: string; readonly Destination?: string }[] | null;
  readonly NetworkSettings?: {
    readonly Ports?: Record<string, readonly { readonly HostIp?: string; readonly HostPort?: string }[] | null> | null;
  } | null;
}

export interface ConvertedContainers {
  readonly containers: WorkspaceAgentContainer[];
  readonly warnings: string[];
}

/**
 * Maps the JSON array `docker inspect` prints to the wire's containers, as the reference does:
 * the name without its leading `/`, the status as `running` / `exited with code N` /
 * `exited successfully` (plus `: <error>`), mounts as source → destination, and published ports
 * with invalid host ports skipped (with a warning) and loopback/unspecified duplicates collapsed.
 */
export function convertDockerInspect(json: string): ConvertedContainers {
  let entries: unknown;
  try {
    entries = JSON.parse(json);
  } catch (error) {
    return { containers: [], warnings: [`docker inspect printed output that is not JSON: ${(error as Error).message}`] };
  }
  if (!Array.isArray(entries)) return { containers: [], warnings: ['docker inspect printed JSON that is not an array'] };
  const warnings: string[] = [];
  const containers = (entries as DockerInspectEntry[])
    .filter((entry) => typeof entry?.Id === 'string')
    .map((entry) => convertEntry(entry, warnings));
  return { containers, warnings };
}

function convertEntry(entry: DockerInspectEntry, warnings: string[]): WorkspaceAgentContainer {
  const volumes: Record<string, string> = {};
  for (const mount of entry.Mounts ?? []) {
    if (mount.Source !== undefined && mount.Destination !== undefined) volumes[mount.Source] = mount.Destination;
  }
  return {
    created_at: entry.Created ?? '',
    id: entry.Id ?? '',
    image: entry.Config?.Image ?? '',
    name: (entry.Name ?? '').replace(/^\//, ''),
    status: containerStatus(entry.State ?? {}),
    labels: { ...(entry.Config?.Labels ?? {}) },
    volumes,
    ports: convertPorts(entry.NetworkSettings?.Ports ?? {}, warnings),
    running: entry.State?.Running === true,
  };
}

function containerStatus(state: NonNullable<DockerInspectEntry['State']>): string {
  let status =
    state.Running === true
      ? 'running'
      : state.ExitCode !== undefined && state.ExitCode !== 0
        ? `exited with code ${state.ExitCode}`
        : 'exited successfully';
  if (state.Error !== undefined && state.Error !== '') status += `: ${state.Error}`;
  return status;
}

function convertPorts(
  ports: NonNullable<NonNullable<DockerInspectEntry['NetworkSettings']>['Ports']>,
  warnings: string[],
): WorkspaceAgentContainer['ports'] {
  const out: WorkspaceAgentContainer['ports'] = [];
  // host port → container port already published on a loopback or unspecified address.
  const loopbackMappings = new Map<number, number>();
  for (const key of Object.keys(ports).sort()) {
    const { port, network, warning } = parseContainerPort(key);
    if (warning !== undefined) warnings.push(warning);
    if (port === undefined) continue;
    for (const binding of ports[key] ?? []) {
      const hostPortText = binding.HostPort ?? '';
      const hostPort = /^\d+$/.test(hostPortText) ? Number(hostPortText) : Number.NaN;
      if (!Number.isInteger(hostPort) || hostPort < 1 || hostPort > 65535) {
        warnings.push(`convert docker host port: invalid host port ${JSON.stringify(hostPortText)} for container port ${key}`);
        continue;
      }
      const hostIp = binding.HostIp ?? '';
      if (isLoopbackOrUnspecified(hostIp)) {
        if (loopbackMappings.get(hostPort) === port) continue;
        loopbackMappings.set(hostPort, port);
      }
      out.push({ host_ip: hostIp, host_port: hostPort, network, port });
    }
  }
  return out;
}

/** `80/tcp` → 80, tcp; `80` → 80, tcp. Anything else is skipped with a warning. */
function parseContainerPort(key: string): { port?: number; network: string; warning?: string } {
  const parts = key.split('/');
  const portText = parts[0] ?? '';
  const port = /^\d+$/.test(portText) ? Number(portText) : Number.NaN;
  if (parts.length > 2 || !Number.isInteger(port) || port < 1 || port > 65535) {
    return { network: 'tcp', warning: `convert docker port: invalid container port ${JSON.stringify(key)}` };
  }
  return { port, network: parts[1] !== undefined && parts[1] !== '' ? parts[1] : 'tcp' };
}

function isLoopbackOrUnspecified(ip: string): boolean {
  const version = isIP(ip);
  if (version === 4) return ip === '0.0.0.0' || ip.startsWith('127.');
  if (version !== 6) return false;
  const lower = ip.toLowerCase();
  if (lower === '::' || lower === '::1' || /^0*(:0*){6}:0*1$/.test(lower) || /^0*(:0*){7}$/.test(lower)) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  return mapped?.[1] !== undefined && isLoopbackOrUnspecified(mapped[1]);
}
