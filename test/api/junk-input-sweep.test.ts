import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { CoveClient } from '../../src/sdk/client.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { createMember, createOwner, startTestDaemon, STRONG_PASSWORD, type TestDaemon } from '../helpers/test-daemon.js';

/**
 * Sends junk to every route the daemon serves (from its route table, with the body and query
 * schemas of its OpenAPI document): wrong types for each field, megabyte strings, huge and negative
 * numbers, NUL bytes, bad UUIDs and path traversal in path parameters, malformed JSON. No answer
 * may be a 5xx, and every 4xx must be in the spec's error shape.
 */

/** Routes not swept, each with why. */
const SKIPPED: Readonly<Record<string, string>> = {
  'GET /api/v2/workspaces/:workspace/watch': 'a server-sent event stream that stays open while the workspace exists',
  'GET /api/v2/workspaceagents/me/reinit': 'a stream that stays open until a prebuild is claimed',
  'GET /api/v2/workspaceagents/:workspaceagent/watch-metadata': 'a server-sent event stream that stays open while the agent exists',
  'GET /swagger': 'the OpenAPI document itself; takes no input',
};

const MEGABYTE = 'x'.repeat(1_000_000);

/** Probes in flight at once. */
const CONCURRENCY = 16;

/** Values of the wrong type, or of the right type at its extremes, for any field. */
const JUNK_VALUES: readonly unknown[] = [
  null,
  true,
  -1,
  1e308,
  2 ** 64,
  '',
  MEGABYTE,
  'nul\u0000byte',
  '../../etc/passwd',
  [],
  {},
  { nested: { deeper: [1e308] } },
];

/** Path parameter values that are not what the route wants. */
const JUNK_PARAMS: readonly string[] = [
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  '../../etc/passwd',
  'nul\u0000byte',
  '-1',
  '18446744073709551616',
  'x'.repeat(5000),
  'me',
];

/** Whole bodies that are not the JSON object a route wants. */
const JUNK_BODIES: readonly string[] = ['{"unterminated": ', '[]', '"a string"', '1e308', 'null', '{"a":1}{"b":2}', '\u0000'];

interface Schema {
  readonly type?: string | readonly string[];
  readonly format?: string;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly items?: Schema;
  readonly anyOf?: readonly Schema[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
}

interface Operation {
  readonly parameters?: readonly { readonly in: string; readonly name: string; readonly schema?: Schema }[];
  readonly requestBody?: { readonly content?: Readonly<Record<string, { readonly schema?: Schema }>> };
}

interface Probe {
  readonly route: string;
  readonly method: string;
  readonly path: string;
  readonly body?: string;
  readonly contentType?: string;
  readonly token: string | undefined;
}

const OWNER_JUNK = { values: JUNK_VALUES, params: JUNK_PARAMS };

/** The few values a plain member sends: cheap, and enough to reach what members may reach. */
const MEMBER_JUNK = {
  values: [null, -1, 2 ** 64, 'nul\u0000byte', '../../etc/passwd', {}],
  params: ['not-a-uuid', '00000000-0000-0000-0000-000000000000', '../../etc/passwd', 'nul\u0000byte'],
};

function acceptsString(schema: Schema): boolean {
  if (schema.anyOf) return schema.anyOf.some(acceptsString);
  return schema.type === undefined || schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string'));
}

/** A value the schema accepts, so that one junk field at a time gets past the others. */
function plausible(schema: Schema | undefined, ids: Readonly<Record<string, string>>): unknown {
  if (!schema) return 'x';
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.anyOf?.length) return plausible(schema.anyOf[0], ids);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      if (schema.format === 'uuid') return ids['uuid'];
      if (schema.format === 'date-time') return new Date('2026-01-06T10:00:00Z').toISOString();
      if (schema.format === 'email') return 'someone@example.com';
      return 'plausible';
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([name, field]) => [name, plausible(field, ids)]));
    default:
      return 'plausible';
  }
}

/** The path with each parameter filled from `values`, or with the real id known for its name. */
function fillPath(url: string, ids: Readonly<Record<string, string>>, override?: { readonly name: string; readonly value: string }) {
  return url.replace(/:([A-Za-z]+)/g, (_match, name: string) =>
    encodeURIComponent(override?.name === name ? override.value : (ids[name] ?? 'unknown')),
  );
}

/** Every probe of one route: junk in each path parameter, each query parameter, each body field, and whole junk bodies. */
function probesOf(
  method: string,
  url: string,
  operation: Operation | undefined,
  ids: Readonly<Record<string, string>>,
  token: string | undefined,
  junk: { readonly values: readonly unknown[]; readonly params: readonly string[] },
): Probe[] {
  const { values } = junk;
  const route = `${method} ${url}`;
  const probes: Probe[] = [];
  const base = { route, method, token };
  const bodySchema = operation?.requestBody?.content?.['application/json']?.schema;
  const validBody = bodySchema ? JSON.stringify(plausible(bodySchema, ids)) : undefined;
  const withBody = (path: string, body?: string): Probe =>
    body === undefined ? { ...base, path } : { ...base, path, body, contentType: 'application/json' };
  const realPath = fillPath(url, ids);
  probes.push(withBody(realPath, validBody));
  for (const [, name] of url.matchAll(/:([A-Za-z]+)/g)) {
    for (const value of junk.params) probes.push(withBody(fillPath(url, ids, { name: name ?? '', value }), validBody));
  }
  for (const parameter of operation?.parameters ?? []) {
    if (parameter.in !== 'query') continue;
    for (const value of values) {
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      probes.push(withBody(`${realPath}?${encodeURIComponent(parameter.name)}=${encodeURIComponent(text)}`, validBody));
    }
  }
  if (method !== 'GET') {
    for (const body of JUNK_BODIES) probes.push(withBody(realPath, body));
    const skeleton = (plausible(bodySchema, ids) ?? {}) as Record<string, unknown>;
    for (const [field, schema] of Object.entries(bodySchema?.properties ?? {})) {
      for (const value of values) {
        // A megabyte goes only where a string may go: elsewhere it is one more wrong type, and slow to send.
        if (value === MEGABYTE && !acceptsString(schema)) continue;
        probes.push(withBody(realPath, JSON.stringify({ ...skeleton, [field]: value })));
      }
    }
  }
  return probes;
}

interface Outcome {
  readonly probe: Probe;
  readonly status: number;
  readonly text: string;
}

/**
 * Connections kept open between probes, one per probe in flight: node's HTTP client rather than
 * fetch, which spent more of the sweep's time than the daemon answering it.
 */
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

async function send(url: string, probe: Probe): Promise<Outcome> {
  // As an API client asks: the sign-in pages answer a browser with HTML, an API client in the error shape.
  const headers: Record<string, string> = { accept: 'application/json' };
  if (probe.token) headers['Service-Session-Token'] = probe.token;
  if (probe.contentType) headers['content-type'] = probe.contentType;
  if (probe.body !== undefined) headers['content-length'] = String(Buffer.byteLength(probe.body));
  return new Promise((resolve, reject) => {
    const outgoing = request(`${url}${probe.path}`, { method: probe.method, headers, agent, timeout: 20_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', reject);
      response.once('end', () => resolve({ probe, status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    // A probe whose answer stalls for 20 s fails as one, rather than holding the sweep.
    outgoing.once('timeout', () => outgoing.destroy(new Error('no answer within 20 s')));
    outgoing.once('error', reject);
    outgoing.end(probe.body);
  });
}

/** Why a 4xx body is not in the spec's error shape, or undefined when it is. */
function shapeProblem(text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'not an object';
  const { message, detail, validations } = body as Record<string, unknown>;
  if (typeof message !== 'string') return 'no message';
  if (detail !== undefined && typeof detail !== 'string') return 'detail is not a string';
  if (validations !== undefined) {
    if (!Array.isArray(validations)) return 'validations is not an array';
    for (const v of validations as unknown[]) {
      const entry = v as Record<string, unknown> | null;
      if (typeof entry?.['field'] !== 'string' || typeof entry['detail'] !== 'string') return 'a validation is not {field, detail}';
    }
  }
  return undefined;
}

/** Runs `work` over `items`, `limit` at a time. */
async function inParallel<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        results.push(await work(item));
      }
    }),
  );
  return results;
}

describe('junk input to every route', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let member: CoveClient;
  let ids: Record<string, string>;
  let document: { paths: Record<string, Record<string, Operation>> };

  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1', swaggerEnable: 'true', rateLimitDisableAll: 'true' } });
    owner = await createOwner(test);
    member = await createMember(test, 'member');
    // Junk with a real user in the path may suspend, demote or delete them: that user is not one whose session the sweep uses.
    await createMember(test, 'victim');
    // And junk sent to logout ends the session of a user of its own.
    await createMember(test, 'leaver');
    const { template, version } = await createEchoTemplate(owner, 'swept', {
      apply: { resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main', auth_token: 'swept-agent-token' }] }] },
    });
    const workspace = await member.createWorkspace('me', { name: 'swept', template_id: template.id });
    await member.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
    const build = await member.workspaceBuild(workspace.latest_build.id);
    const agentId = build.resources.flatMap((r) => r.agents)[0]?.id ?? assert.fail('an agent');
    const org = (await owner.organizations())[0] ?? assert.fail('an organization');
    const { key } = await member.createToken({ token_name: 'swept-token' });
    const dryRun = await owner.createDryRun(version.id, { workspace_name: 'plan' });
    const file = await owner.uploadFile(Buffer.from('not a tar'), 'application/x-tar').catch(() => ({ id: version.job.file_id }));
    ids = {
      uuid: workspace.id,
      user: 'victim',
      organization: org.id,
      template: template.id,
      templatename: template.name,
      templateversion: version.id,
      templateversionname: version.name,
      workspace: workspace.id,
      workspacename: workspace.name,
      workspacebuild: build.id,
      buildnumber: '1',
      workspaceagent: agentId,
      job: version.job.id,
      jobID: dryRun.id,
      fileID: file.id,
      keyid: key.split('-')[0] ?? '',
      keyname: 'swept-token',
      keyName: 'no-such-key',
      roleName: 'no-such-role',
      devcontainer: 'no-such-container',
      file: 'cove-linux-amd64',
    };
    const response = await fetch(`${test.url}/swagger`);
    document = (await response.json()) as typeof document;
  });
  after(async () => {
    agent.destroy();
    await test.close();
  });

  it('answers every probe without a 5xx, and every 4xx in the error shape', async (t) => {
    const routes = test.daemon.app.routeList.filter((route) => !(`${route.method} ${route.url}` in SKIPPED));
    const operationOf = (method: string, url: string) => document.paths[url.replace(/:([A-Za-z]+)/g, '{$1}')]?.[method.toLowerCase()];
    // Sessions that junk may end (logout) are made afresh for that route.
    const probes = routes.flatMap((route) =>
      route.url === '/api/v2/users/logout'
        ? []
        : [
            ...probesOf(route.method, route.url, operationOf(route.method, route.url), ids, owner.token, OWNER_JUNK),
            ...probesOf(route.method, route.url, operationOf(route.method, route.url), ids, member.token, MEMBER_JUNK),
          ],
    );
    const problems: string[] = [];
    const { session_token } = await test.anonymous.login('leaver@example.com', STRONG_PASSWORD);
    const started = Date.now();
    const outcomes = await inParallel(probes, CONCURRENCY, (probe) =>
      send(test.url, probe).catch((error: unknown) => ({ probe, status: 0, text: String(error) })),
    );
    outcomes.push(
      ...(await Promise.all(
        JUNK_BODIES.map((body) =>
          send(test.url, {
            route: 'POST /api/v2/users/logout',
            method: 'POST',
            path: '/api/v2/users/logout',
            body,
            contentType: 'application/json',
            token: session_token,
          }),
        ),
      )),
    );
    for (const { probe, status, text } of outcomes) {
      const what = `${probe.route} as ${probe.token === owner.token ? 'owner' : 'member'}: ${probe.method} ${probe.path.slice(0, 120)} ${probe.body?.slice(0, 80) ?? ''}`;
      if (status === 0 || status >= 500) problems.push(`${status} ${what} -> ${text.slice(0, 200)}`);
      else if (status >= 400) {
        const problem = shapeProblem(text);
        if (problem) problems.push(`${status} (${problem}) ${what} -> ${text.slice(0, 120)}`);
      }
    }
    t.diagnostic(
      `${probes.length} probes (${probes.filter((p) => (p.body?.length ?? 0) > 100_000).length} large) in ${Date.now() - started} ms`,
    );
    assert.ok(probes.length > 1000, `${probes.length} probes`);
    assert.ok(problems.length === 0, `${problems.length} bad answers:\n${problems.slice(0, 60).join('\n')}`);
  });
});
