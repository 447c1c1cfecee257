import { homedir } from 'node:os';
import { isAbsolute, join, normalize } from 'node:path';
import type { PlannedAgent, PlannedApp, PlannedResource, PlannedScript } from '../provisioner.js';
import { InterpolationError, interpolate, type InterpolationScope, type WorkspaceField } from './interpolate.js';
import { mapExpandable } from './expandable-fields.js';
import type { RawAgent, RawApp, RawResource, RawScript } from './raw-template.js';
import { childPath } from './read-against-schema.js';
import { RESOURCE_SCHEMA } from './template-schema.js';

/**
 * A resource of `template.yaml` with every `${{ }}` expanded and a directory's `path` made
 * absolute where it starts with `~`. Computes receive this; it keeps the file's field names.
 */
export type ResourceSpec = RawResource;

/** The values references resolve to for one build (or for the import, with defaults). */
export interface ExpansionValues {
  readonly parameters: Readonly<Record<string, string>>;
  readonly variables: Readonly<Record<string, string>>;
  readonly workspace: Readonly<Record<WorkspaceField, string>>;
}

/** Agents show these built-in apps unless the template lists its own. */
export const DEFAULT_DISPLAY_APPS: readonly string[] = ['web_terminal', 'ssh_helper', 'port_forwarding_helper'];
/** Seconds an agent has to connect before it counts as timed out, as in the reference. */
export const DEFAULT_CONNECTION_TIMEOUT = 120;

/** The fields of a resource that other resources may read, by compute type. */
const REFERENCEABLE: Readonly<Record<RawResource['type'], readonly string[]>> = {
  directory: ['name', 'type', 'icon', 'path'],
  process: ['name', 'type', 'icon'],
  docker: ['name', 'type', 'icon', 'image'],
  hook: ['name', 'type', 'icon'],
};

/**
 * The scope references of `resources` resolve in. `resources.<name>.<field>` expands that field
 * of that resource on demand, so declaration order does not matter; a cycle is an error.
 */
export function createScope(resources: readonly RawResource[], values: ExpansionValues): InterpolationScope {
  const done = new Map<string, string>();
  const visiting: string[] = [];
  const scope: InterpolationScope = {
    ...values,
    resource(name, field) {
      const index = resources.findIndex((resource) => resource.name === name);
      const resource = resources[index];
      if (!resource || !REFERENCEABLE[resource.type].includes(field)) return undefined;
      const key = `resources.${name}.${field}`;
      const known = done.get(key);
      if (known !== undefined) return known;
      const path = childPath(childPath('resources', index), field);
      if (visiting.includes(key)) {
        throw new InterpolationError(path, `has a reference cycle: ${[...visiting.slice(visiting.indexOf(key)), key].join(' -> ')}`);
      }
      visiting.push(key);
      try {
        const raw = String((resource as unknown as Record<string, unknown>)[field] ?? '');
        const expanded = field === 'name' || field === 'type' ? raw : interpolate(raw, scope, path);
        const value = field === 'path' ? directoryPath(expanded) : expanded;
        done.set(key, value);
        return value;
      } finally {
        visiting.pop();
      }
    },
  };
  return scope;
}

/** Expands every `${{ }}` of one resource (the one at `index` of the file). */
export function expandResource(resource: RawResource, index: number, scope: InterpolationScope): ResourceSpec {
  const expanded = mapExpandable(resource, RESOURCE_SCHEMA, childPath('resources', index), (text, field) =>
    interpolate(text, scope, field),
  ) as RawResource;
  return expanded.type === 'directory' && expanded.path !== undefined ? { ...expanded, path: directoryPath(expanded.path) } : expanded;
}

/** Expands all resources of a template for one set of values. Throws InterpolationError. */
export function expandResources(resources: readonly RawResource[], values: ExpansionValues): ResourceSpec[] {
  const scope = createScope(resources, values);
  return resources.map((resource, index) => expandResource(resource, index, scope));
}

/**
 * `~` and `~/x` name the provisioner user's home; absolute paths are normalised (no `//`, no
 * trailing `/`). Relative paths are returned as they are, for the caller to refuse.
 */
export function directoryPath(text: string): string {
  const expanded = text === '~' ? homedir() : text.startsWith('~/') ? join(homedir(), text.slice(2)) : text;
  if (!isAbsolute(expanded)) return expanded;
  const normalized = normalize(expanded);
  return normalized.length > 1 && /[\\/]$/.test(normalized) ? normalized.slice(0, -1) : normalized;
}

/** The operating system and architecture names agents report, for the host this runs on. */
export function hostPlatform(): { readonly os: string; readonly arch: string } {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const arch = ({ x64: 'amd64', arm64: 'arm64', arm: 'armv7', ia32: '386' } as Record<string, string>)[process.arch] ?? process.arch;
  return { os, arch };
}

/** The wire shape of an expanded resource, with every default filled in and no agent tokens yet. */
export function toPlannedResource(spec: ResourceSpec): PlannedResource {
  const host = hostPlatform();
  // A process runs on this host; containers and hook-made machines are Linux unless declared.
  const platform = spec.type === 'process' ? host : { os: 'linux', arch: host.arch };
  return {
    name: spec.name,
    type: spec.type,
    hide: spec.hide ?? false,
    icon: spec.icon ?? '',
    daily_cost: spec.daily_cost ?? 0,
    metadata: (spec.metadata ?? []).map((entry) => ({ key: entry.key, value: entry.value ?? '', sensitive: entry.sensitive ?? false })),
    agents: (spec.agents ?? []).map((agent) => toPlannedAgent(agent, platform)),
  };
}

function toPlannedAgent(agent: RawAgent, platform: { readonly os: string; readonly arch: string }): PlannedAgent {
  return {
    name: agent.name,
    directory: agent.dir ?? '',
    env: { ...agent.env },
    operating_system: agent.os ?? platform.os,
    architecture: agent.arch ?? platform.arch,
    connection_timeout_seconds: agent.connection_timeout ?? DEFAULT_CONNECTION_TIMEOUT,
    troubleshooting_url: agent.troubleshooting_url ?? '',
    display_apps: [...(agent.display_apps ?? DEFAULT_DISPLAY_APPS)],
    startup_script_behavior: agent.startup_script_behavior ?? 'non-blocking',
    auth_token: '',
    instance_id: agent.instance_id ?? '',
    scripts: (agent.scripts ?? []).map(toPlannedScript),
    apps: (agent.apps ?? []).map(toPlannedApp),
    // Only when declared: a definition without metadata items stays as it always was.
    ...(agent.metadata
      ? {
          metadata: agent.metadata.map((item) => ({
            key: item.key,
            display_name: item.display_name ?? item.key,
            script: item.script,
            interval: item.interval,
            timeout: item.timeout ?? 0,
            order: item.order ?? 0,
          })),
        }
      : {}),
  };
}

function toPlannedScript(script: RawScript, index: number): PlannedScript {
  const runOnStop = script.run_on_stop ?? false;
  const cron = script.cron ?? '';
  return {
    display_name: script.display_name ?? `Script ${index + 1}`,
    script: script.script,
    cron,
    // A script that says nothing about when it runs runs on start.
    run_on_start: script.run_on_start ?? (!runOnStop && cron === ''),
    run_on_stop: runOnStop,
    start_blocks_login: script.start_blocks_login ?? false,
    timeout: script.timeout ?? 0,
    log_path: script.log_path ?? '',
  };
}

function toPlannedApp(app: RawApp): PlannedApp {
  return {
    slug: app.slug,
    display_name: app.display_name ?? app.slug,
    url: app.url ?? '',
    command: app.command ?? '',
    icon: app.icon ?? '',
    external: app.external ?? false,
    subdomain: app.subdomain ?? false,
    share: app.share ?? 'owner',
    hidden: app.hidden ?? false,
    open_in: app.open_in ?? 'slim-window',
    group: app.group ?? '',
    healthcheck: app.healthcheck
      ? { url: app.healthcheck.url, interval: app.healthcheck.interval ?? 5, threshold: app.healthcheck.threshold ?? 6 }
      : null,
  };
}
