import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../src/sdk/api-error.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Workspace } from '../../src/sdk/wire/index.js';
import { startAgentWorkspace, type AgentWorkspace } from '../helpers/agent-workspace.js';
import { eventually } from '../helpers/eventually.js';
import { specTypeFields, type SpecField } from '../helpers/spec-types.js';
import { createMember, createOwner, startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

/**
 * Walks every response object type of the spec (from its committed type list, test/fixtures) and
 * holds a real answer of the daemon against it: each field the spec lists is present, `null` only
 * where there is no value (never where the spec marks the field required), and of the JSON type
 * the spec gives it. Nested inline objects (`{a: x}`) and arrays of them are checked too.
 */

const AGENT_TOKEN = 'agent-token-of-the-spec-fields-test';

/** The world every type's instances come from. */
interface World {
  readonly test: TestDaemon;
  readonly owner: CoveClient;
  readonly member: CoveClient;
  readonly agent: CoveClient;
  readonly orgId: string;
  readonly ws: AgentWorkspace;
  readonly workspace: Workspace;
  readonly versionId: string;
}

interface TypeCheck {
  /** The type as the spec names it (test/helpers/spec-types.ts says where the spec lists its fields). */
  readonly type: string;
  /** Where the spec's grouping gives a field the wrong type, what another place of the spec says. */
  readonly overrides?: Readonly<Record<string, Partial<SpecField>>>;
  /** Real answers of the daemon. */
  readonly instances: (world: World) => Promise<readonly unknown[]>;
}

const get = (client: CoveClient, path: string) => client.request<unknown>('GET', path);
const list = async (answer: Promise<unknown>) => (await answer) as unknown[];
const field = (value: unknown, name: string): unknown => (value as Record<string, unknown>)[name];
const many = (value: unknown, name: string): unknown[] => field(value, name) as unknown[];

const CHECKS: readonly TypeCheck[] = [
  { type: 'Organization', instances: (w) => list(w.owner.organizations()) },
  {
    type: 'Organization member',
    instances: async (w) => [await w.owner.setMemberRoles(w.orgId, 'alice', ['organization-admin'])],
  },
  {
    type: 'Role reference',
    instances: async (w) => {
      const members = await w.owner.organizationMembers(w.orgId);
      return members.flatMap((m) => [...m.roles, ...m.global_roles]);
    },
  },
  {
    type: 'Member with user data',
    instances: (w) => list(w.owner.organizationMembers(w.orgId)),
  },
  {
    type: 'Paginated members response',
    instances: async (w) => [await w.owner.paginatedMembers(w.orgId)],
  },
  {
    type: 'Role',
    instances: async (w) => [
      await w.owner.createCustomRole(w.orgId, {
        name: 'spec-role',
        display_name: 'Spec Role',
        organization_permissions: [{ action: 'read', negate: false, resource_type: 'template' }],
      }),
    ],
  },
  {
    type: 'Assignable role',
    instances: async (w) => [...(await w.owner.siteRoles()), ...(await w.owner.organizationRoles(w.orgId))],
  },
  {
    type: 'Permission',
    instances: async (w) =>
      (await w.owner.organizationRoles(w.orgId)).flatMap((role) => [
        ...role.organization_permissions,
        ...role.site_permissions,
        ...role.user_permissions,
      ]),
  },
  {
    type: 'Login response',
    instances: async (w) => [await w.test.anonymous.login('alice@example.com', STRONG_PASSWORD)],
  },
  {
    type: 'Validate-password response',
    instances: async (w) => [await w.member.validatePassword('hunter2')],
  },
  {
    type: 'Token config',
    instances: async (w) => [await w.member.tokenConfig()],
  },
  {
    type: 'Provisioner job',
    instances: async (w) => [
      ...(await w.owner.provisionerJobs(w.orgId)),
      (await w.owner.templateVersion(w.versionId)).job,
      w.workspace.latest_build.job,
    ],
  },
  {
    type: 'Job log entry',
    instances: (w) => list(w.owner.templateVersionLogs(w.versionId)),
  },
  { type: 'Template', instances: (w) => list(w.owner.templates()) },
  {
    type: 'Template example',
    // The reference's example ids are directory names ("docker"), not UUIDs, and `example_id` takes them as strings.
    overrides: { id: { format: undefined } },
    instances: (w) => list(w.owner.templateExamples()),
  },
  {
    type: 'Template version',
    instances: async (w) => [await w.owner.templateVersion(w.versionId)],
  },
  {
    type: 'Dynamic parameters response',
    instances: async (w) => [await w.owner.evaluateDynamicParameters(w.versionId, { id: 1, inputs: { region: 'eu' } })],
  },
  {
    type: 'Dynamic parameter',
    instances: async (w) => (await w.owner.evaluateDynamicParameters(w.versionId, { id: 1, inputs: {} })).parameters,
  },
  {
    type: 'Workspace resource',
    instances: async (w) => [...(await w.owner.templateVersionResources(w.versionId)), ...w.workspace.latest_build.resources],
  },
  { type: 'Workspace agent', instances: async (w) => [await w.member.workspaceAgent(w.ws.agentId)] },
  {
    type: 'Log source',
    instances: async (w) => (await w.member.workspaceAgent(w.ws.agentId)).log_sources,
  },
  {
    type: 'Script',
    instances: async (w) => (await w.member.workspaceAgent(w.ws.agentId)).scripts,
  },
  {
    type: 'Agent log entry',
    instances: (w) => list(w.member.workspaceAgentLogs(w.ws.agentId)),
  },
  { type: 'App', instances: async (w) => (await w.member.workspaceAgent(w.ws.agentId)).apps },
  {
    type: 'App status',
    instances: async (w) => (await w.member.workspaceAgent(w.ws.agentId)).apps.flatMap((app) => app.statuses),
  },
  {
    type: 'Containers response',
    instances: async (w) => [await get(w.member, `/workspaceagents/${w.ws.agentId}/containers?label=spec=fields`)],
  },
  {
    type: 'Connection info',
    overrides: { derp_map: { kind: 'object' } },
    instances: async (w) => [await get(w.member, `/workspaceagents/${w.ws.agentId}/connection`)],
  },
  {
    type: 'Relay map',
    instances: async (w) => [field(await get(w.member, `/workspaceagents/${w.ws.agentId}/connection`), 'derp_map')],
  },
  {
    type: 'Relay node',
    instances: async (w) => {
      const map = field(await get(w.member, `/workspaceagents/${w.ws.agentId}/connection`), 'derp_map');
      return Object.values(field(map, 'regions') as Record<string, unknown>).flatMap((region) => many(region, 'nodes'));
    },
  },
  {
    type: 'Listening ports response',
    instances: async (w) => [await get(w.member, `/workspaceagents/${w.ws.agentId}/listening-ports`)],
  },
  {
    type: 'Git SSH key response',
    instances: async (w) => [await get(w.agent, '/workspaceagents/me/gitsshkey')],
  },
  {
    type: 'Workspace',
    instances: async (w) => [
      await w.member.workspace(w.ws.workspaceId),
      ...(await w.owner.workspaces()).workspaces,
      (await w.owner.setWorkspaceDormant(w.workspace.id, true)) ?? assert.fail('the workspace became dormant'),
    ],
  },
  {
    type: 'Workspace build',
    overrides: { job: { kind: 'object' }, matched_provisioners: { kind: 'object' } },
    instances: async (w) => [
      ...(await w.member.workspaceBuilds(w.ws.workspaceId)),
      await w.owner.workspaceBuild(w.workspace.latest_build.id),
    ],
  },
  {
    type: 'Timings response',
    instances: async (w) => [await w.member.workspaceTimings(w.ws.workspaceId)],
  },
  {
    type: 'Resolve-autostart response',
    instances: async (w) => [await w.member.resolveAutostart(w.ws.workspaceId)],
  },
  {
    type: 'Port share',
    instances: async (w) => [
      await w.member.sharePort(w.ws.workspaceId, { agent_name: 'main', port: 8080, share_level: 'authenticated', protocol: 'http' }),
      ...(await w.member.portShares(w.ws.workspaceId)).shares,
    ],
  },
  {
    type: 'Port share list response',
    instances: async (w) => [await w.member.portShares(w.ws.workspaceId)],
  },
  {
    type: 'Build info',
    instances: async (w) => [await w.test.anonymous.buildInfo()],
  },
  {
    type: 'Update check',
    instances: async (w) => [await w.test.anonymous.updateCheck()],
  },
  {
    type: 'SSH config',
    instances: async (w) => [await w.member.deploymentSsh()],
  },
  {
    type: 'Deployment stats',
    // Written as "`session_count`: integer counters `ssh`, ..." and "`workspaces`: `building`, ... (integer)": objects of counters.
    overrides: {
      session_count: { kind: 'object', fields: ['ssh', 'reconnecting_pty'].map((name) => ({ name, kind: 'integer', required: false })) },
      workspaces: {
        kind: 'object',
        fields: [
          ...['building', 'failed', 'pending', 'running', 'stopped', 'rx_bytes', 'tx_bytes'].map((name) => ({
            name,
            kind: 'integer' as const,
            required: false,
          })),
          { name: 'connection_latency_ms', kind: 'object', required: false },
        ],
      },
    },
    instances: async (w) => [await w.owner.deploymentStats()],
  },
  {
    type: 'Deployment config',
    overrides: { config: { kind: 'object' } },
    instances: async (w) => [await w.owner.deploymentConfig()],
  },
  {
    type: 'Error body',
    // The architecture and the reference leave an error's detail and validations out when it has none.
    overrides: { detail: { optional: true }, validations: { optional: true } },
    instances: async (w) => {
      try {
        await w.member.workspace('00000000-0000-4000-8000-000000000000');
      } catch (error) {
        if (error instanceof ApiError) {
          const { session_token } = await w.test.anonymous.login('alice@example.com', STRONG_PASSWORD);
          return [error.body, await w.test.anonymous.withToken(session_token).logout()];
        }
      }
      return assert.fail('a missing workspace is an error');
    },
  },
  {
    type: 'App host response',
    instances: async (w) => [await get(w.member, '/applications/host')],
  },
];

/**
 * Types the spec lists that the daemon does not serve yet, or serves only on a stream: each with
 * why it is not walked here.
 */
export const NOT_WALKED: Readonly<Record<string, string>> = {
  'Authorization check': 'its response is a map of the caller’s own check names (test/api/authcheck.test.ts)',
  'Convert-login response': 'needs an OIDC or GitHub provider to convert to (test/api/users.test.ts)',
  License: 'licenses are not served',
  'Health report': 'the health report is not served',
  Insights: 'insights are not served',
  'Agent external auth response': 'no external auth provider is configured in tests',
  'External auth entry': 'a template may only require configured providers, and none is configured in tests',
  'Reinitialization event': 'a stream that only a claimed prebuild would end',
  'Server-sent event': 'a stream (test/api/workspaces.test.ts watches it)',
  Devcontainer: 'needs a dev container runtime on the machine',
  Preset: 'sent with the Go field names the reference sends (ID, Name, ...): test/api/reference-wire.test.ts checks it',
  Container: 'needs a container runtime on the machine',
};

/** Every way `value` differs from `fields`, as `path: what`. */
function differences(value: unknown, fields: readonly SpecField[], path: string): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${path}: not an object`];
  const object = value as Record<string, unknown>;
  const out: string[] = [];
  for (const spec of fields) {
    const at = `${path}.${spec.name}`;
    if (!(spec.name in object)) {
      if (!spec.optional) out.push(`${at}: missing`);
      continue;
    }
    const found = object[spec.name];
    if (found === null) {
      if (spec.required) out.push(`${at}: null, but required`);
      continue;
    }
    const problem = kindProblem(found, spec) ?? formatProblem(found, spec);
    if (problem) out.push(`${at}: ${problem}`);
    else if (spec.fields && spec.kind === 'object') out.push(...differences(found, spec.fields, at));
    else if (spec.fields && spec.kind === 'array') {
      (found as unknown[]).forEach((item, index) => out.push(...differences(item, spec.fields ?? [], `${at}[${index}]`)));
    }
  }
  return out;
}

function kindProblem(value: unknown, spec: SpecField): string | undefined {
  const ok = {
    string: typeof value === 'string',
    integer: Number.isInteger(value),
    number: typeof value === 'number',
    boolean: typeof value === 'boolean',
    array: Array.isArray(value),
    object: typeof value === 'object' && value !== null && !Array.isArray(value),
    any: true,
  }[spec.kind];
  return ok ? undefined : `expected ${spec.kind}, got ${JSON.stringify(value)?.slice(0, 80)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A uuid or date-time field's string must be one: an empty string is not "no value" (null is). */
function formatProblem(value: unknown, spec: SpecField): string | undefined {
  if (spec.format === 'uuid' && !UUID.test(String(value))) return `expected a uuid, got ${JSON.stringify(value)}`;
  if (spec.format === 'date-time' && Number.isNaN(Date.parse(String(value)))) return `expected a date-time, got ${JSON.stringify(value)}`;
  return undefined;
}

/**
 * Fields the reference's server leaves out when they have no value (`omitempty`), as the daemon
 * does: by type, dotted for nested ones. test/api/reference-wire.test.ts holds them against the
 * reference client's types.
 */
const LEFT_OUT_WHEN_EMPTY: Readonly<Record<string, readonly string[]>> = {
  'Provisioner job': [
    ...['started_at', 'completed_at', 'canceled_at', 'error', 'error_code', 'worker_id', 'worker_name', 'available_workers'],
    ...['input.error', 'input.template_version_id', 'input.workspace_build_id', 'metadata.workspace_id', 'metadata.workspace_name'],
  ],
  'Workspace agent': [
    ...['first_connected_at', 'last_connected_at', 'disconnected_at', 'started_at', 'ready_at', 'latency'],
    ...['directory', 'expanded_directory', 'instance_id', 'health.reason'],
  ],
  Workspace: ['autostart_schedule', 'ttl_ms'],
  'Workspace build': ['ai_task_sidebar_app_id', 'workspace_owner_avatar_url'],
  'Workspace resource': ['metadata'],
  App: ['command', 'icon', 'subdomain_name', 'group'],
  'Template version': ['created_by.avatar_url', 'warnings'],
  'Role reference': ['organization_id'],
  Role: ['organization_id'],
  'Build info': ['webpush_public_key'],
  'Assignable role': ['organization_id'],
  'Member with user data': ['name', 'avatar_url', 'global_roles.organization_id'],
  'Paginated members response': ['members.name', 'members.avatar_url', 'members.global_roles.organization_id'],
  // The reference's options are serpent options, whose descriptive fields are all `omitempty`.
  'Deployment config': ['annotations', 'default', 'flag_shorthand', 'yaml', 'group.parent', 'hidden', 'required', 'use_instead'].map(
    (name) => `options.${name}`,
  ),
  'Containers response': ['warnings'],
};

/** `fields` with those at `paths` (dotted for nested fields) marked as may be left out. */
function leftOutWhenEmpty(fields: readonly SpecField[], paths: readonly string[]): SpecField[] {
  return fields.map((spec) => {
    const nested = paths.filter((path) => path.startsWith(`${spec.name}.`)).map((path) => path.slice(spec.name.length + 1));
    return {
      ...spec,
      ...(paths.includes(spec.name) ? { optional: true } : {}),
      ...(spec.fields && nested.length > 0 ? { fields: leftOutWhenEmpty(spec.fields, nested) } : {}),
    };
  });
}

/** The fields the spec lists for a check (from the committed type list), with its overrides applied. */
function specFieldsOf(check: TypeCheck): SpecField[] {
  const fields = leftOutWhenEmpty(specTypeFields(check.type), LEFT_OUT_WHEN_EMPTY[check.type] ?? []);
  return fields.map((spec) => ({ ...spec, ...check.overrides?.[spec.name] }));
}

describe('every response object type of the spec, against real answers', () => {
  let world: World;
  let home: string;

  before(async () => {
    const test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    const owner = await createOwner(test);
    const member = await createMember(test, 'alice');
    const orgId = (await owner.organizations())[0]?.id ?? assert.fail('a default organization');
    home = mkdtempSync(join(tmpdir(), 'cove-spec-fields-'));
    const ws = await startAgentWorkspace({
      url: test.url,
      owner,
      member,
      token: AGENT_TOKEN,
      home,
      agent: {
        apps: [
          {
            slug: 'web',
            display_name: 'Web',
            url: 'http://localhost:8080',
            healthcheck: { url: 'http://localhost:8080', interval: 5, threshold: 3 },
          },
        ],
        scripts: [{ display_name: 'Hello', script: 'echo hello', run_on_start: true }],
      },
      prepareTemplate: (id) => owner.updateTemplate(id, { max_port_share_level: 'public' }),
    });
    const agent = owner.withToken(AGENT_TOKEN);
    await agent.request('PATCH', '/workspaceagents/me/app-status', {
      body: { app_slug: 'web', state: 'working', message: 'Busy', uri: '' },
    });
    await eventually(async () => assert.ok((await member.workspaceTimings(ws.workspaceId)).agent_script_timings.length > 0));

    // A version with everything an import can carry: parameters, presets, external auth, metadata.
    const echo = {
      parse: {
        parameters: [{ name: 'region', type: 'string', default_value: 'eu', mutable: true, options: [{ name: 'EU', value: 'eu' }] }],
        presets: [{ name: 'Europe', default: true, parameters: [{ name: 'region', value: 'eu' }] }],
      },
      apply: { resources: [{ name: 'box', type: 'echo', metadata: [{ key: 'size', value: 'small' }] }] },
    };
    const { createEchoTemplate } = await import('../helpers/echo-template.js');
    const { template, version } = await createEchoTemplate(owner, 'everything', echo);
    const created = await owner.createWorkspace('me', { name: 'plain', template_id: template.id });
    await owner.followWorkspaceBuildLogs(created.latest_build.id, () => undefined);
    world = { test, owner, member, agent, orgId, ws, workspace: await owner.workspace(created.id), versionId: version.id };
  });
  after(async () => {
    await world.ws.agent.stop();
    await world.test.close();
    rmSync(home, { recursive: true, force: true });
  });

  for (const check of CHECKS) {
    it(`${check.type}: every field the spec lists, in its JSON type`, async () => {
      const fields = specFieldsOf(check);
      assert.ok(fields.length > 0, `the spec lists fields of ${check.type}`);
      const instances = await check.instances(world);
      assert.ok(instances.length > 0, `the daemon served an instance of ${check.type}`);
      const problems = instances.flatMap((instance, index) => differences(instance, fields, `${check.type}[${index}]`));
      assert.ok(problems.length === 0, [...new Set(problems)].join('\n'));
    });
  }

  it('deployment config: URL settings are text, as the reference marshals them, and telemetry and derp are there', async () => {
    const { config } = await world.owner.deploymentConfig();
    assert.equal(config['access_url'], world.test.url);
    assert.equal(config['wildcard_access_url'], '');
    assert.ok('telemetry' in config && typeof config['telemetry'] === 'object', 'telemetry');
    assert.ok('derp' in config && typeof config['derp'] === 'object', 'derp');
  });

  it('a build job names its template by UUID and its workspace by id and name', async () => {
    const { job } = world.workspace.latest_build;
    assert.equal(job.metadata.template_id, world.workspace.template_id);
    assert.equal(job.metadata.workspace_id, world.workspace.id);
    assert.equal(job.metadata.workspace_name, world.workspace.name);
    const imported = (await world.owner.templateVersion(world.versionId)).job;
    assert.equal(imported.metadata.template_id, (await world.owner.templateVersion(world.versionId)).template_id);
    assert.equal(imported.metadata.workspace_id, undefined, 'an import has no workspace');
  });
});
