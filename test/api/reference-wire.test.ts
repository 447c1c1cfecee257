import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ReferenceTypes, WireField, WireType } from '../../scripts/reference-types.js';
import { createTar } from '../../src/lib/archive/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { startAgentWorkspace, type AgentWorkspace } from '../helpers/agent-workspace.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { createMember, createOwner, startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

/**
 * Holds real answers of the daemon against the reference dashboard client's own wire types, as the
 * committed type list test/fixtures/reference-types.json states them (scripts/reference-types.ts
 * generates it from the client's `typesGenerated.ts`): every field the client counts on is there,
 * a field the reference's server leaves out when empty (`field?:`) is left out rather than `null`,
 * `null` only where the type says `| null`, each value of its JSON kind (and one of the listed
 * strings where the type lists them), and no field the type does not know. Nested objects are held
 * against their own types, so a workspace checks its build, job, resources and agents too.
 */

const REFERENCE = JSON.parse(readFileSync(new URL('../fixtures/reference-types.json', import.meta.url), 'utf8')) as ReferenceTypes;

/**
 * Fields Cove sends that the reference's type does not list, each with why it stays. Clients
 * ignore fields they do not know; these carry Cove's own features.
 */
const ALLOWED_EXTRAS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Template: { settings_not_in_effect: 'names the scheduling settings the deployment does not apply (docs/templates.md)' },
  TemplateVersionParameter: { order: "the template's display order of the parameter, which clients sort by" },
  HealthcheckReport: { service_version: "the version under Cove's own name, which its CLI and dashboard read, beside `coder_version`" },
  ProvisionerDaemonsReport: { healthy: "Cove's spec gives every section of the report its verdict, this one too" },
};

/** Values beyond the reference's listed strings, by type and field, each with why. */
const EXTRA_VALUES: Readonly<Record<string, Readonly<Record<string, { readonly values: readonly string[]; readonly why: string }>>>> = {
  ProvisionerDaemon: {
    provisioners: { values: ['native'], why: "Cove's own provisioner, which runs without Terraform (docs/templates.md)" },
  },
  Permission: {
    action: { values: ['*'], why: "the reference's built-in roles grant every action as `*`; its client's list of actions leaves it out" },
  },
};

/**
 * Fields the reference's client types call optional that its server still sends as `null`: Go's
 * `omitempty` does not leave out a struct, and a `NullTime` without a value marshals as null.
 */
const SENT_AS_NULL: Readonly<Record<string, readonly string[]>> = {
  WorkspaceBuild: ['deadline', 'max_deadline'],
};

/**
 * Optional fields the reference's server sends even when they hold a zero value: Go's `omitempty`
 * leaves out only a nil pointer, and these are pointers (`*bool`).
 */
const SENT_WHEN_ZERO: Readonly<Record<string, readonly string[]>> = {
  WorkspaceBuild: ['has_ai_task'],
};

const AGENT_TOKEN = 'agent-token-of-the-reference-wire-test';

interface World {
  readonly test: TestDaemon;
  readonly owner: CoveClient;
  readonly member: CoveClient;
  readonly orgId: string;
  readonly ws: AgentWorkspace;
  readonly versionId: string;
  readonly templateId: string;
  /** A version that no template has taken up. */
  readonly looseVersionId: string;
}

interface Check {
  /** The reference's type name. */
  readonly type: string;
  /** Real answers of the daemon, as JSON. */
  readonly instances: (world: World) => Promise<readonly unknown[]>;
}

const get = (client: CoveClient, path: string) => client.request<unknown>('GET', path);
const list = async (answer: Promise<unknown>) => (await answer) as unknown[];

const CHECKS: readonly Check[] = [
  {
    type: 'User',
    instances: async (w) => [
      await get(w.owner, '/users/me'),
      ...((await get(w.owner, '/users')) as { users: unknown[] }).users,
      await w.owner.request<unknown>('POST', '/users', {
        body: { email: 'bob@example.com', username: 'bob', password: STRONG_PASSWORD, organization_ids: [w.orgId] },
      }),
    ],
  },
  { type: 'Organization', instances: (w) => list(get(w.owner, '/organizations')) },
  {
    type: 'Template',
    instances: async (w) => [...(await list(get(w.owner, '/templates'))), await get(w.owner, `/templates/${w.templateId}`)],
  },
  {
    type: 'TemplateVersion',
    instances: async (w) => [
      await get(w.owner, `/templateversions/${w.versionId}`),
      ...(await list(get(w.owner, `/templates/${w.templateId}/versions`))),
    ],
  },
  {
    type: 'Workspace',
    instances: async (w) => [
      await get(w.member, `/workspaces/${w.ws.workspaceId}`),
      ...((await get(w.owner, '/workspaces')) as { workspaces: unknown[] }).workspaces,
    ],
  },
  {
    type: 'WorkspaceBuild',
    instances: (w) => list(get(w.member, `/workspaces/${w.ws.workspaceId}/builds`)),
  },
  {
    type: 'WorkspaceBuildTimings',
    instances: async (w) => {
      const timings = (await get(w.member, `/workspaces/${w.ws.workspaceId}/timings`)) as { provisioner_timings: { stage: string }[] };
      // The provisioner's stages in the reference's names, the resources' apply among them.
      assert.ok(
        timings.provisioner_timings.some((timing) => timing.stage === 'apply'),
        JSON.stringify(timings),
      );
      return [timings];
    },
  },
  { type: 'WorkspaceAgent', instances: async (w) => [await get(w.member, `/workspaceagents/${w.ws.agentId}`)] },
  {
    type: 'ProvisionerJob',
    instances: async (w) => {
      const loose = (await get(w.owner, `/templateversions/${w.looseVersionId}`)) as { job: { metadata: { template_id: string } } };
      // The reference names no template of a version in none with the zero UUID, not null.
      assert.equal(loose.job.metadata.template_id, '00000000-0000-0000-0000-000000000000');
      return [...(await list(get(w.owner, `/organizations/${w.orgId}/provisionerjobs`))), loose.job];
    },
  },
  {
    type: 'WorkspaceResource',
    // Planned resources of an import: their agents have not run, so nothing is expanded yet.
    instances: async (w) => {
      const { active_version_id: id } = (await get(w.owner, `/templates/${w.ws.templateId}`)) as { active_version_id: string };
      return list(get(w.owner, `/templateversions/${id}/resources`));
    },
  },
  { type: 'TemplateVersionParameter', instances: (w) => list(get(w.owner, `/templateversions/${w.versionId}/rich-parameters`)) },
  {
    type: 'Group',
    instances: async (w) => {
      const memberId = ((await get(w.member, '/users/me')) as { id: string }).id;
      const made = await w.owner.request<{ id: string }>('POST', `/organizations/${w.orgId}/groups`, {
        body: { name: 'wire-group', display_name: 'Wire Group', avatar_url: '', quota_allowance: 3 },
      });
      const patched = await w.owner.request<unknown>('PATCH', `/groups/${made.id}`, { body: { add_users: [memberId] } });
      return [made, patched, ...(await list(get(w.owner, '/groups'))), ...(await list(get(w.member, `/organizations/${w.orgId}/groups`)))];
    },
  },
  {
    type: 'TemplateACL',
    instances: async (w) => {
      const memberId = ((await get(w.member, '/users/me')) as { id: string }).id;
      await w.owner.request('PATCH', `/templates/${w.templateId}/acl`, { body: { user_perms: { [memberId]: 'admin' } } });
      return [await get(w.owner, `/templates/${w.templateId}/acl`)];
    },
  },
  { type: 'ACLAvailable', instances: async (w) => [await get(w.owner, `/templates/${w.templateId}/acl/available`)] },
  {
    type: 'WorkspaceQuota',
    instances: async (w) => [
      await get(w.member, '/workspace-quota/me'),
      await get(w.owner, `/organizations/${w.orgId}/members/me/workspace-quota`),
    ],
  },
  { type: 'BuildInfoResponse', instances: async (w) => [await get(w.member, '/buildinfo')] },
  { type: 'DeploymentStats', instances: async (w) => [await get(w.owner, '/deployment/stats')] },
  {
    type: 'AssignableRoles',
    instances: async (w) => [
      ...(await list(get(w.owner, '/users/roles'))),
      ...(await list(get(w.owner, `/organizations/${w.orgId}/members/roles`))),
    ],
  },
  { type: 'Preset', instances: (w) => list(get(w.owner, `/templateversions/${w.versionId}/presets`)) },
  {
    type: 'HealthcheckReport',
    // Every section is held against its own type: the relay's in Tailscale's Go names, and no empty `error`.
    instances: async (w) => [await get(w.owner, '/debug/health?force=true')],
  },
  {
    type: 'WorkspaceAgentListContainersResponse',
    instances: async (w) => [await get(w.member, `/workspaceagents/${w.ws.agentId}/containers`)],
  },
  {
    type: 'ProvisionerDaemon',
    instances: async (w) => {
      const daemons = (await list(get(w.owner, `/organizations/${w.orgId}/provisionerdaemons`))) as Record<string, unknown>[];
      // The built-in daemon ran the imports and builds: its last job is named, from the job table.
      const last = daemons.map((daemon) => daemon['previous_job'] as { id: string; template_name: string } | null).find(Boolean);
      assert.ok(last, JSON.stringify(daemons));
      const job = (await get(w.owner, `/organizations/${w.orgId}/provisionerjobs/${last.id}`)) as { metadata: { template_name: string } };
      assert.equal(last.template_name, job.metadata.template_name);
      return daemons;
    },
  },
];

/** Every way `value` differs from `type`, as `path: what`. */
function mismatches(value: unknown, type: WireType, path: string): string[] {
  if (value === null) return type.nullable ? [] : [`${path}: null, but the reference's type is not nullable`];
  if (type.kind === 'any') return [];
  const kindOk = {
    string: typeof value === 'string',
    number: typeof value === 'number',
    boolean: typeof value === 'boolean',
    array: Array.isArray(value),
    object: typeof value === 'object' && !Array.isArray(value),
  }[type.kind];
  if (!kindOk) return [`${path}: expected ${type.kind}, got ${JSON.stringify(value)?.slice(0, 80)}`];
  if (type.values && !type.values.includes(value as string)) {
    return [`${path}: ${JSON.stringify(value)} is none of ${type.values.join(', ')}`];
  }
  if (type.items) return (value as unknown[]).flatMap((item, index) => mismatches(item, type.items as WireType, `${path}[${index}]`));
  if (type.map) {
    return Object.entries(value as Record<string, unknown>).flatMap(([key, item]) =>
      mismatches(item, type.map as WireType, `${path}.${key}`),
    );
  }
  if (type.ref) return objectMismatches(value as Record<string, unknown>, type.ref, path);
  return [];
}

/**
 * Whether Go's `omitempty` leaves `value` out: an empty string, a zero, `false`, an empty list or an
 * empty map (a struct is never left out, so an object of a named type is not empty).
 */
function isEmpty(value: unknown, type: WireType): boolean {
  if (value === '' || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return type.map !== undefined && typeof value === 'object' && value !== null && Object.keys(value).length === 0;
}

function objectMismatches(object: Record<string, unknown>, typeName: string, path: string): string[] {
  const fields: readonly WireField[] | undefined = REFERENCE.objects[typeName];
  if (!fields) return [`${path}: the reference has no type ${typeName}`];
  const out: string[] = [];
  for (const field of fields) {
    if (!(field.name in object)) {
      if (!field.optional) out.push(`${path}.${field.name} (${typeName}): missing`);
      continue;
    }
    if (field.optional && !SENT_WHEN_ZERO[typeName]?.includes(field.name) && isEmpty(object[field.name], field.type)) {
      out.push(`${path}.${field.name} (${typeName}): ${JSON.stringify(object[field.name])}, but the reference leaves it out when empty`);
      continue;
    }
    let type = SENT_AS_NULL[typeName]?.includes(field.name) ? { ...field.type, nullable: true as const } : field.type;
    const extra = EXTRA_VALUES[typeName]?.[field.name]?.values;
    if (extra && type.items?.values) type = { ...type, items: { ...type.items, values: [...type.items.values, ...extra] } };
    else if (extra && type.values) type = { ...type, values: [...type.values, ...extra] };
    out.push(...mismatches(object[field.name], type, `${path}.${field.name}`));
  }
  const extras = ALLOWED_EXTRAS[typeName] ?? {};
  for (const name of Object.keys(object)) {
    if (!fields.some((field) => field.name === name) && !(name in extras)) out.push(`${path}.${name} (${typeName}): unknown field`);
  }
  return out;
}

describe("answers against the reference client's wire types", () => {
  let world: World;
  let home: string;

  before(async () => {
    const test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    const owner = await createOwner(test);
    const member = await createMember(test, 'alice');
    const orgId = (await owner.organizations())[0]?.id ?? assert.fail('a default organization');
    home = mkdtempSync(join(tmpdir(), 'cove-reference-wire-'));
    const ws = await startAgentWorkspace({
      url: test.url,
      owner,
      member,
      token: AGENT_TOKEN,
      home,
      agent: {
        apps: [{ slug: 'web', display_name: 'Web', url: 'http://localhost:8080' }],
        scripts: [{ display_name: 'Hello', script: 'echo hello', run_on_start: true }],
      },
    });
    // A version with parameters and presets, made into a template of its own.
    const echo = {
      parse: {
        parameters: [{ name: 'region', type: 'string', default_value: 'eu', mutable: true, options: [{ name: 'EU', value: 'eu' }] }],
        presets: [{ name: 'Europe', default: true, parameters: [{ name: 'region', value: 'eu' }] }],
      },
      apply: { resources: [{ name: 'box', type: 'echo', metadata: [{ key: 'size', value: 'small' }] }] },
    };
    const { template, version } = await createEchoTemplate(owner, 'everything', echo);
    const { id: fileId } = await owner.uploadFile(await createTar({ 'echo.json': '{}' }));
    const loose = await owner.createTemplateVersion('default', { file_id: fileId });
    await owner.followTemplateVersionLogs(loose.id, () => undefined);
    world = { test, owner, member, orgId, ws, versionId: version.id, templateId: template.id, looseVersionId: loose.id };
  });
  after(async () => {
    await world.ws.agent.stop();
    await world.test.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('answers the other calls its dashboard misread in the shapes it reads', async () => {
    const { owner, orgId } = world;
    assert.deepEqual(await get(owner, '/experiments/available'), { safe: [] });
    const permissions = [{ action: 'read', negate: false, resource_type: 'template' }];
    for (const method of ['POST', 'PUT'] as const) {
      const role = await owner.request<unknown>(method, `/organizations/${orgId}/members/roles`, {
        body: { name: 'wire-role', display_name: 'Wire Role', organization_permissions: permissions },
      });
      assert.deepEqual(mismatches(role, { kind: 'object', ref: 'Role' }, `${method} role`), []);
    }
    const health = (await get(owner, '/debug/health')) as Record<string, unknown>;
    assert.equal(typeof health['coder_version'], 'string');
    assert.equal(health['coder_version'], health['service_version']);
  });

  for (const check of CHECKS) {
    it(`${check.type}: as the reference's client reads it`, async () => {
      const instances = await check.instances(world);
      assert.ok(instances.length > 0, `the daemon served an instance of ${check.type}`);
      const problems = instances.flatMap((instance, index) =>
        mismatches(instance, { kind: 'object', ref: check.type }, `${check.type}[${index}]`),
      );
      assert.ok(problems.length === 0, [...new Set(problems)].join('\n'));
    });
  }

  it("DeploymentConfig: as the reference's client reads it", async () => {
    const answer = (await get(world.owner, '/deployment/config')) as {
      config: Record<string, unknown>;
      options: { flag: string; value: unknown; group?: Record<string, unknown> }[];
    };
    // Settings the reference's server sends even when empty: `serpent.URL` is a struct, which
    // `omitempty` never leaves out; it marshals as a string.
    const sentWhenEmpty = ['wildcard_access_url', 'docs_url'];
    // The reference's types file writes `serpent.StringArray` as `string`; its server sends arrays.
    const stringArrays = [
      'config_ssh.SSHConfigOptions',
      'derp.server.stun_addresses',
      'logging.log_filter',
      'oauth2.github.allowed_orgs',
      'oauth2.github.allowed_teams',
      'oidc.email_domain',
      'oidc.group_allow_list',
      'oidc.scopes',
    ];
    // Reference settings Cove has no equivalent of (OIDC organization sync, GitHub
    // device flow, external provisioner daemons, SMTP details beyond the Email settings, Prometheus collectors,
    // log filters and Stackdriver, CORS for all): left out rather than sent as invented values.
    const notInCove = [
      'dangerous.allow_all_cors',
      'logging.log_filter',
      'logging.stackdriver',
      'notifications.email.auth.identity',
      'notifications.email.auth.password_file',
      'notifications.email.hello',
      'notifications.email.tls',
      'oauth2.github.default_provider_enable',
      'oauth2.github.device_flow',
      ...['auth_url_params', 'client_cert_file', 'client_key_file', 'ignore_user_info', 'organization_assign_default'].map(
        (name) => `oidc.${name}`,
      ),
      'oidc.organization_field',
      ...['organization_mapping', 'signups_disabled_text', 'skip_issuer_checks', 'source_user_info_from_access_token'].map(
        (name) => `oidc.${name}`,
      ),
      'oidc.user_roles_default',
      ...['aggregate_agent_stats_by', 'collect_agent_stats', 'collect_db_metrics'].map((name) => `prometheus.${name}`),
      ...['daemon_poll_interval', 'daemon_poll_jitter', 'daemon_psk', 'daemon_types', 'force_cancel_interval'].map(
        (name) => `provisioner.${name}`,
      ),
    ];
    // Cove's own settings, with no equivalent in the reference and no name of its; its client ignores them.
    const coveOnly = [
      'application_name',
      'data_dir',
      'http_body_timeout',
      'http_header_timeout',
      'instance_identity',
      'licenses',
      'logo_url',
      'notifications.webhook.secret',
      'notifications.autostop_warning',
      'provisioner.release_dir',
      'relay_url',
      'update_check_url',
      'user_dormancy_threshold',
      // Newer reference clients have it (RetentionConfig), with the same four durations and names; the fixture's predates it.
      'retention',
    ];
    const field = (problem: string) => /^DeploymentConfig\.config\.([\w.]+)/.exec(problem)?.[1] ?? '';
    const problems = mismatches(answer, { kind: 'object', ref: 'DeploymentConfig' }, 'DeploymentConfig').filter(
      (problem) =>
        !(sentWhenEmpty.includes(field(problem)) && problem.endsWith('leaves it out when empty')) &&
        !(stringArrays.includes(field(problem)) && / expected string, got \[/.test(problem)) &&
        !(notInCove.includes(field(problem)) && problem.endsWith(': missing')) &&
        !(coveOnly.includes(field(problem)) && problem.endsWith('unknown field')) &&
        // An option's value is an interface in the reference, which `omitempty` keeps when it holds an empty value.
        !/^DeploymentConfig\.options\[\d+\]\.value \(SerpentOption\)/.test(problem),
    );
    assert.ok(problems.length === 0, [...new Set(problems)].join('\n'));
    // The client takes an option's value as it comes: it is the setting's own value, URLs as strings.
    const byFlag = new Map(answer.options.map((option) => [option.flag, option]));
    assert.equal(byFlag.get('access-url')?.value, answer.config['access_url']);
    assert.equal(typeof answer.config['wildcard_access_url'], 'string', 'a URL setting is sent when empty');
    assert.equal(typeof byFlag.get('oidc-issuer-url')?.value, 'string');
    assert.equal(byFlag.get('log-json')?.value, '');
  });
});
