import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { authenticateWithInstanceIdentity } from '../../src/agent/instance-identity.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { AgentAuthResponse } from '../../src/sdk/wire/index.js';
import { expectApiError, rawRequest } from '../helpers/expect-api-error.js';
import {
  azureChain,
  jwks,
  makeCertificate,
  rsaKeyPair,
  signAwsDocument,
  signGoogleToken,
  signPkcs7,
  type TestCertificate,
  type TestKeyPair,
} from '../helpers/instance-identity-fixtures.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { eventually } from '../helpers/eventually.js';
import { createEchoTemplate } from '../helpers/echo-template.js';

const COVE = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/cove');

/** The keys and certificates the daemon under test trusts, written to files for its flags. */
interface Clouds {
  readonly dir: string;
  readonly aws: TestCertificate;
  readonly azure: ReturnType<typeof azureChain>;
  readonly google: TestKeyPair;
  readonly flags: { awsInstanceIdentityCerts: string; azureInstanceIdentityRoots: string; googleInstanceIdentityCerts: string };
}

async function makeClouds(): Promise<Clouds> {
  const dir = await mkdtemp(join(tmpdir(), 'cove-clouds-'));
  const aws = makeCertificate({ commonName: 'Test AWS Instance Identity' });
  const azure = azureChain('metadata.azure.com');
  const google = rsaKeyPair();
  const flags = {
    awsInstanceIdentityCerts: join(dir, 'aws.pem'),
    azureInstanceIdentityRoots: join(dir, 'azure-roots.pem'),
    googleInstanceIdentityCerts: join(dir, 'google-jwks.json'),
  };
  // An unrelated certificate first: every one is tried.
  await writeFile(flags.awsInstanceIdentityCerts, `${makeCertificate({ commonName: 'Other Region' }).pem}${aws.pem}`);
  await writeFile(flags.azureInstanceIdentityRoots, azure.root.pem);
  await writeFile(flags.googleInstanceIdentityCerts, jwks([{ kid: 'google-key', publicKey: google.publicKey }]));
  return { dir, aws, azure, google, flags };
}

const awsProof = (clouds: Clouds, instanceId: string) => signAwsDocument(instanceId, clouds.aws.privateKey);
const azureProof = (clouds: Clouds, vmId: string) => ({
  encoding: 'pkcs7',
  signature: signPkcs7(JSON.stringify({ nonce: 'n', vmId }), clouds.azure.leaf, [clouds.azure.leaf, clouds.azure.intermediate]),
});
const googleProof = (clouds: Clouds, test: TestDaemon, instanceId: string) => ({
  json_web_token: signGoogleToken(clouds.google.privateKey, {
    instanceId,
    kid: 'google-key',
    exp: Math.floor(test.clock.now().getTime() / 1000) + 600,
  }),
});

function exchange(test: TestDaemon, cloud: 'aws' | 'azure' | 'google', body: unknown): Promise<AgentAuthResponse> {
  return test.anonymous.request<AgentAuthResponse>('POST', `/workspaceagents/${cloud}-instance-identity`, { body });
}

let templates = 0;

/** A template whose start builds run one agent with `instanceId` (and a token the test knows); stops run none. */
async function workspaceOn(
  owner: CoveClient,
  user: CoveClient,
  instanceId: string,
  token: string,
): Promise<{ workspaceId: string; agentId: string; versionId: string }> {
  const agent = { name: 'main', instance_id: instanceId, auth_token: token };
  const echo = { apply: { resources: [{ name: 'vm', type: 'cloud_instance', agents: [agent] }], stop: { resources: [] } } };
  templates += 1;
  const { template, version } = await createEchoTemplate(owner, `cloud-${templates}`, echo);
  const workspace = await user.createWorkspace('me', { name: `cloud-ws-${templates}`, template_id: template.id });
  await user.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
  const build = await user.workspaceBuild(workspace.latest_build.id);
  assert.equal(build.status, 'running', JSON.stringify(build.job));
  const agentId = build.resources.flatMap((resource) => resource.agents)[0]?.id;
  assert.ok(agentId, 'the build made an agent');
  return { workspaceId: workspace.id, agentId, versionId: version.id };
}

/** GET /workspaceagents/me/gitsshkey with an agent token: its status. */
async function agentCall(test: TestDaemon, token: string): Promise<number> {
  return (await rawRequest(test.url, 'GET', '/workspaceagents/me/gitsshkey', { headers: { 'Service-Session-Token': token } })).status;
}

/** A log batch with an agent token, on the route that may know the agent from a recent batch: its status. */
async function logsCall(test: TestDaemon, token: string): Promise<number> {
  const body = JSON.stringify({ log_source_id: '', logs: [{ created_at: test.clock.now().toISOString(), level: 'info', output: 'hi' }] });
  const headers = { 'Service-Session-Token': token, 'content-type': 'application/json' };
  return (await rawRequest(test.url, 'PATCH', '/workspaceagents/me/logs', { body, headers })).status;
}

async function tokenHash(test: TestDaemon, agentId: string): Promise<string> {
  const row = await test.daemon.store.db
    .selectFrom('workspace_agents')
    .select('auth_token_hash')
    .where('id', '=', agentId)
    .executeTakeFirstOrThrow();
  return row.auth_token_hash;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('instance identity exchange', () => {
  let clouds: Clouds;
  let test: TestDaemon;
  let owner: CoveClient;
  let alice: CoveClient;
  before(async () => {
    clouds = await makeClouds();
    test = await startTestDaemon({ flags: { provisionerDaemons: '1', ...clouds.flags } });
    owner = await createOwner(test);
    alice = await createMember(test, 'alice');
  });
  after(async () => {
    await test.close();
    await rm(clouds.dir, { recursive: true, force: true });
  });

  it('stores the instance id and shows it as the agent instance_id', async () => {
    const { agentId, versionId } = await workspaceOn(owner, alice, 'i-0shown', 'token-shown');
    assert.equal((await alice.workspaceAgent(agentId)).instance_id, 'i-0shown');
    const planned = (await owner.templateVersionResources(versionId)).flatMap((resource) => resource.agents);
    assert.deepEqual(
      planned.map((agent) => agent.instance_id),
      ['i-0shown'],
    );
  });

  it('exchanges a signed AWS document for a new agent token that replaces the old one', async () => {
    const known = 'token-of-aws-agent';
    const { agentId } = await workspaceOn(owner, alice, 'i-0aws', known);
    assert.equal(await agentCall(test, known), 200);
    assert.equal(await logsCall(test, known), 200);

    const { session_token: first } = await exchange(test, 'aws', awsProof(clouds, 'i-0aws'));
    assert.match(first, /^[0-9a-f-]{36}$/);
    assert.equal(await tokenHash(test, agentId), sha256(first));
    assert.equal(await agentCall(test, first), 200);
    assert.equal(await agentCall(test, known), 401, 'the token the build made is replaced');
    // At once, also where a recent batch had made the agent known by that token.
    assert.equal(await logsCall(test, known), 401);
    assert.equal(await logsCall(test, first), 200);

    const { session_token: second } = await exchange(test, 'aws', awsProof(clouds, 'i-0aws'));
    assert.notEqual(second, first);
    assert.equal(await agentCall(test, second), 200);
    assert.equal(await agentCall(test, first), 401, 'each exchange replaces the token of the one before');
    assert.equal(await logsCall(test, first), 401);
    assert.equal(await logsCall(test, second), 200);
  });

  it('exchanges an Azure attested document and a Google identity token', async () => {
    const azure = await workspaceOn(owner, alice, 'a0b1c2d3-0000-4000-8000-0000000000az', 'token-of-azure-agent');
    const { session_token: azureToken } = await exchange(test, 'azure', azureProof(clouds, 'a0b1c2d3-0000-4000-8000-0000000000az'));
    assert.equal(await tokenHash(test, azure.agentId), sha256(azureToken));
    assert.equal(await agentCall(test, azureToken), 200);

    const google = await workspaceOn(owner, alice, '4815162342', 'token-of-google-agent');
    const { session_token: googleToken } = await exchange(test, 'google', googleProof(clouds, test, '4815162342'));
    assert.equal(await tokenHash(test, google.agentId), sha256(googleToken));
    assert.equal(await agentCall(test, googleToken), 200);
  });

  it('refuses forged proofs with 401 and leaves the token as it was', async () => {
    const known = 'token-of-guarded-agent';
    const { agentId } = await workspaceOn(owner, alice, 'i-0guarded', known);
    const before = await tokenHash(test, agentId);

    const forged = signAwsDocument('i-0guarded', rsaKeyPair().privateKey);
    await expectApiError(exchange(test, 'aws', forged), 401, /"message":"Invalid AWS identity\.".*does not match/);
    const genuine = awsProof(clouds, 'i-0other');
    await expectApiError(
      exchange(test, 'aws', { ...genuine, document: genuine.document.replace('i-0other', 'i-0guarded') }),
      401,
      /Invalid AWS identity/,
    );

    const stranger = azureChain('metadata.azure.com');
    const untrusted = {
      encoding: 'pkcs7',
      signature: signPkcs7(JSON.stringify({ vmId: 'i-0guarded' }), stranger.leaf, [stranger.leaf, stranger.intermediate]),
    };
    await expectApiError(exchange(test, 'azure', untrusted), 401, /Invalid Azure identity.*does not chain/);

    const badJwt = {
      json_web_token: signGoogleToken(rsaKeyPair().privateKey, {
        instanceId: 'i-0guarded',
        kid: 'google-key',
        exp: test.clock.now().getTime() / 1000 + 600,
      }),
    };
    await expectApiError(exchange(test, 'google', badJwt), 401, /Invalid GCP identity/);
    const expired = {
      json_web_token: signGoogleToken(clouds.google.privateKey, {
        instanceId: 'i-0guarded',
        kid: 'google-key',
        exp: test.clock.now().getTime() / 1000 - 1,
      }),
    };
    await expectApiError(exchange(test, 'google', expired), 401, /expired/);
    const noClaim = {
      json_web_token: signGoogleToken(clouds.google.privateKey, { kid: 'google-key', exp: test.clock.now().getTime() / 1000 + 600 }),
    };
    await expectApiError(exchange(test, 'google', noClaim), 400, /Error decoding JWT claims/);

    assert.equal(await tokenHash(test, agentId), before);
    assert.equal(await agentCall(test, known), 200);
  });

  it('answers 404 for an instance no agent has', async () => {
    await expectApiError(exchange(test, 'aws', awsProof(clouds, 'i-0nobody')), 404, /Instance with id \\"i-0nobody\\" not found\./);
    await expectApiError(exchange(test, 'google', googleProof(clouds, test, '999')), 404, /Instance with id \\"999\\" not found/);
  });

  it('answers 400 for an agent whose build is no longer the latest', async () => {
    const known = 'token-of-stopped-agent';
    const { workspaceId, agentId } = await workspaceOn(owner, alice, 'i-0stopped', known);
    const stop = await alice.createWorkspaceBuild(workspaceId, { transition: 'stop' });
    await alice.followWorkspaceBuildLogs(stop.id, () => undefined);
    const before = await tokenHash(test, agentId);
    await expectApiError(exchange(test, 'aws', awsProof(clouds, 'i-0stopped')), 400, /isn't registered on the latest history/);
    assert.equal(await tokenHash(test, agentId), before);

    // Started again, the new build's agent (the newest with that instance id) gets the token.
    const start = await alice.createWorkspaceBuild(workspaceId, { transition: 'start' });
    await alice.followWorkspaceBuildLogs(start.id, () => undefined);
    const newAgent = (await alice.workspaceBuild(start.id)).resources.flatMap((resource) => resource.agents)[0];
    assert.ok(newAgent && newAgent.id !== agentId);
    const { session_token } = await exchange(test, 'aws', awsProof(clouds, 'i-0stopped'));
    assert.equal(await tokenHash(test, newAgent.id), sha256(session_token));
    assert.equal(await tokenHash(test, agentId), before);
  });

  it('answers 400 in the error shape for malformed bodies', async () => {
    const aws = await rawRequest(test.url, 'POST', '/workspaceagents/aws-instance-identity', {
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(aws.status, 400);
    assert.deepEqual((aws.body['validations'] as { field: string }[]).map((v) => v.field).sort(), ['document', 'signature']);
    const azure = await rawRequest(test.url, 'POST', '/workspaceagents/azure-instance-identity', {
      body: '{"encoding":"pkcs7","signature":5}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(azure.status, 400);
    assert.equal(typeof azure.body['message'], 'string');
    const google = await rawRequest(test.url, 'POST', '/workspaceagents/google-instance-identity', {
      body: '{"json_web_token":""}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(google.status, 400);
    const notJson = await rawRequest(test.url, 'POST', '/workspaceagents/google-instance-identity', {
      body: 'nope',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(notJson.status, 400);
    // No session is needed, and one changes nothing: the answer is the same with or without.
    for (const cloud of ['aws', 'azure', 'google']) {
      for (const headers of [{}, { 'Service-Session-Token': alice.token ?? '' }, { 'Service-Session-Token': 'not-a-token' }] as Record<
        string,
        string
      >[]) {
        const answer = await rawRequest(test.url, 'POST', `/workspaceagents/${cloud}-instance-identity`, {
          body: '{}',
          headers: { 'content-type': 'application/json', ...headers },
        });
        assert.equal(answer.status, 400, `${cloud} ${JSON.stringify(headers)}`);
      }
    }
  });
});

describe('instance identity without trusted certificates', () => {
  it('answers 401 saying which setting to set', async () => {
    const test = await startTestDaemon();
    try {
      const keys = rsaKeyPair();
      const error = await expectApiError(exchange(test, 'aws', signAwsDocument('i-1', keys.privateKey)), 401, /Invalid AWS identity/);
      assert.match(error.detail ?? '', /--aws-instance-identity-certs/);
      assert.match(error.detail ?? '', /does not bundle/);
      await expectApiError(exchange(test, 'azure', { encoding: 'pkcs7', signature: 'AAAA' }), 401, /--azure-instance-identity-roots/);
      await expectApiError(exchange(test, 'google', { json_web_token: 'a.b.c' }), 401, /--google-instance-identity-certs/);
    } finally {
      await test.close();
    }
  });

  it('refuses to start when a trust file cannot be read', async () => {
    await assert.rejects(
      startTestDaemon({ flags: { awsInstanceIdentityCerts: '/nonexistent/aws.pem' } }),
      /--aws-instance-identity-certs: cannot read/,
    );
  });
});

/** A cloud metadata service for all three clouds, checking the headers each cloud requires. */
class FakeMetadata {
  readonly requests: string[] = [];
  readonly #server: Server;
  url = '';

  constructor(answers: { aws: { document: string; signature: string }; azure: { encoding: string; signature: string }; google: string }) {
    this.#server = createServer((request, response) => {
      const path = request.url ?? '';
      this.requests.push(`${request.method} ${path}`);
      const send = (status: number, body: string) => response.writeHead(status, { 'content-type': 'text/plain' }).end(body);
      const imds = request.headers['x-aws-ec2-metadata-token'] === 'imds-session';
      if (request.method === 'PUT' && path === '/latest/api/token') {
        return request.headers['x-aws-ec2-metadata-token-ttl-seconds'] === '21600' ? send(200, 'imds-session') : send(400, 'missing ttl');
      }
      if (path === '/latest/dynamic/instance-identity/signature') return imds ? send(200, `${answers.aws.signature}\n`) : send(401, '');
      if (path === '/latest/dynamic/instance-identity/document') return imds ? send(200, answers.aws.document) : send(401, '');
      if (path === '/metadata/attested/document?api-version=2020-09-01') {
        return request.headers['metadata'] === 'true'
          ? send(200, JSON.stringify(answers.azure))
          : send(400, 'Required metadata header not specified');
      }
      if (path === '/computeMetadata/v1/instance/service-accounts/default/identity?audience=cove&format=full') {
        return header(request, 'metadata-flavor') === 'Google' ? send(200, answers.google) : send(403, 'Missing Metadata-Flavor');
      }
      send(404, 'not found');
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

describe('cove agent with instance identity', () => {
  let clouds: Clouds;
  let test: TestDaemon;
  let owner: CoveClient;
  let alice: CoveClient;
  let metadata: FakeMetadata;
  before(async () => {
    clouds = await makeClouds();
    test = await startTestDaemon({ flags: { provisionerDaemons: '1', ...clouds.flags } });
    owner = await createOwner(test);
    alice = await createMember(test, 'alice');
    metadata = new FakeMetadata({
      aws: awsProof(clouds, 'i-0agent'),
      azure: azureProof(clouds, 'vm-agent'),
      google: googleProof(clouds, test, 'gce-agent').json_web_token,
    });
    await metadata.start();
  });
  after(async () => {
    await metadata.close();
    await test.close();
    await rm(clouds.dir, { recursive: true, force: true });
  });

  it('fetches each cloud identity from the metadata service and gets a working token', async () => {
    const cases = [
      ['aws-instance-identity', 'i-0agent'],
      ['azure-instance-identity', 'vm-agent'],
      ['google-instance-identity', 'gce-agent'],
    ] as const;
    for (const [method, instanceId] of cases) {
      const { agentId } = await workspaceOn(owner, alice, instanceId, `token-${instanceId}`);
      const token = await authenticateWithInstanceIdentity({ url: test.url, method, metadataUrl: metadata.url });
      assert.equal(await tokenHash(test, agentId), sha256(token), method);
      assert.equal(await agentCall(test, token), 200, method);
    }
    assert.deepEqual(metadata.requests.slice(0, 3), [
      'PUT /latest/api/token',
      'GET /latest/dynamic/instance-identity/signature',
      'GET /latest/dynamic/instance-identity/document',
    ]);
  });

  it('runs `cove agent --auth aws-instance-identity` until its start is done', async () => {
    const { agentId } = await workspaceOn(owner, alice, 'i-0cli', 'token-the-agent-never-sees');
    const cli = new FakeMetadata({ aws: awsProof(clouds, 'i-0cli'), azure: { encoding: '', signature: '' }, google: '' });
    await cli.start();
    const home = await mkdtemp(join(tmpdir(), 'cove-agent-home-'));
    try {
      const child = spawn(process.execPath, [COVE, 'agent', '--exit-after-start'], {
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: home,
          COVE_CONFIG_DIR: home,
          COVE_AGENT_URL: test.url,
          COVE_AGENT_AUTH: 'aws-instance-identity',
          COVE_AGENT_METADATA_URL: cli.url,
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const code = await new Promise<number | null>((resolvePromise, reject) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`cove agent did not finish:\n${stderr}`));
        }, 60_000);
        child.once('exit', (exitCode) => {
          clearTimeout(timer);
          resolvePromise(exitCode);
        });
      });
      assert.equal(code, 0, stderr);
      assert.match(stderr, /got an agent token for this instance/);
      assert.ok(cli.requests.includes('PUT /latest/api/token'));
      // The agent stops once its reports are on the wire; the daemon stores them in its own time.
      await eventually(async () => {
        const agent = await alice.workspaceAgent(agentId);
        assert.ok(agent.first_connected_at, 'the agent connected with the exchanged token');
        assert.ok(['off', 'shutting_down', 'ready'].includes(agent.lifecycle_state), agent.lifecycle_state);
      });
    } finally {
      await cli.close();
      await rm(home, { recursive: true, force: true });
    }
  });

  it('exchanges the identity again when a newer build on the same instance replaces its agent', async () => {
    const { workspaceId, agentId } = await workspaceOn(owner, alice, 'i-0again', 'token-of-the-first-build');
    const cloud = new FakeMetadata({ aws: awsProof(clouds, 'i-0again'), azure: { encoding: '', signature: '' }, google: '' });
    await cloud.start();
    const home = await mkdtemp(join(tmpdir(), 'cove-agent-home-'));
    const child = spawn(process.execPath, [COVE, 'agent', '--auth', 'aws-instance-identity'], {
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: home,
        COVE_CONFIG_DIR: home,
        COVE_AGENT_URL: test.url,
        COVE_AGENT_METADATA_URL: cloud.url,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    try {
      await eventually(async () => assert.equal((await alice.workspaceAgent(agentId)).status, 'connected'), 30_000);
      // The same instance, a new build: the old token is refused and the agent becomes the new build's.
      const next = await alice.createWorkspaceBuild(workspaceId, { transition: 'start' });
      await alice.followWorkspaceBuildLogs(next.id, () => undefined);
      const nextAgent = (await alice.workspaceBuild(next.id)).resources.flatMap((r) => r.agents)[0];
      assert.ok(nextAgent);
      await eventually(async () => assert.equal((await alice.workspaceAgent(nextAgent.id)).status, 'connected'), 30_000);
      assert.match(stderr, /exchanging the instance identity again/);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolvePromise) => child.once('exit', resolvePromise));
      await cloud.close();
      await rm(home, { recursive: true, force: true });
    }
  });

  it('stops `cove agent` with a clear error when the deployment refuses the identity', async () => {
    const forged = new FakeMetadata({
      aws: signAwsDocument('i-0cli', rsaKeyPair().privateKey),
      azure: { encoding: '', signature: '' },
      google: '',
    });
    await forged.start();
    try {
      const child = spawn(process.execPath, [COVE, 'agent', '--auth', 'aws-instance-identity'], {
        env: { PATH: process.env['PATH'] ?? '', HOME: tmpdir(), COVE_AGENT_URL: test.url, COVE_AGENT_METADATA_URL: forged.url },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const code = await new Promise<number | null>((resolvePromise) => child.once('exit', resolvePromise));
      assert.equal(code, 1);
      assert.match(stderr, /Invalid AWS identity/);
    } finally {
      await forged.close();
    }
  });
});
