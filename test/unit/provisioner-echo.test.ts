import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createEchoProvisioner } from '../../src/provisioner/echo/echo-provisioner.js';
import {
  ProvisionerCanceledError,
  ProvisionerError,
  type BuildInput,
  type ParseInput,
  type ProvisionerLog,
} from '../../src/provisioner/provisioner.js';

const scratch = await mkdtemp(join(tmpdir(), 'cove-echo-'));
after(() => rm(scratch, { recursive: true, force: true }));

let counter = 0;
async function echoDir(echo: unknown, extra: Record<string, string> = {}): Promise<string> {
  const directory = join(scratch, `e${++counter}`);
  await mkdir(directory, { recursive: true });
  await writeFile(join(directory, 'echo.json'), typeof echo === 'string' ? echo : JSON.stringify(echo));
  for (const [name, content] of Object.entries(extra)) await writeFile(join(directory, name), content);
  return directory;
}

function parseInput(
  directory: string,
  options: { logs?: ProvisionerLog[]; signal?: AbortSignal; variableValues?: { name: string; value: string }[] } = {},
): ParseInput {
  return {
    directory,
    variableValues: options.variableValues ?? [],
    log: (line) => options.logs?.push(line),
    signal: options.signal ?? new AbortController().signal,
  };
}

function buildInput(directory: string, overrides: Partial<BuildInput> = {}): BuildInput {
  return {
    ...parseInput(directory),
    transition: 'start',
    parameterValues: [],
    workspace: { id: 'ws-1', name: 'dev', owner: 'alice', owner_id: 'u-1', start_count: 1 },
    accessUrl: 'http://cove.test',
    previousState: null,
    ...overrides,
  };
}

async function rejection(promise: Promise<unknown>): Promise<ProvisionerError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ProvisionerError, `expected a ProvisionerError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a rejection');
}

const echo = createEchoProvisioner();

describe('echo provisioner', () => {
  it('treats an empty echo.json as a template with nothing in it', async () => {
    const directory = await echoDir({});
    assert.deepEqual(await echo.parse(parseInput(directory)), {
      readme: '',
      variables: [],
      parameters: [],
      presets: [],
      externalAuth: [],
      resources: [],
      metadata: {},
    });
    assert.deepEqual(await echo.plan(buildInput(directory)), { resources: [] });
    const applied = await echo.apply(buildInput(directory, { previousState: Buffer.from('before') }));
    assert.deepEqual(applied.resources, []);
    assert.equal(applied.state.toString(), 'before', 'the state passes through by default');
  });

  it('returns what the documented example says', async () => {
    const directory = await echoDir(
      {
        parse: {
          readme: '# Hello',
          description: 'An echo template',
          icon: '/icon/echo.svg',
          variables: [{ name: 'region', default_value: 'eu', required: false, sensitive: false }],
          parameters: [{ name: 'size', type: 'number', default_value: '2', validation_min: 1 }],
          presets: [{ name: 'Small', default: true, parameters: [{ name: 'size', value: '1' }] }],
          external_auth: ['github', { id: 'gitlab', optional: true }],
          logs: [{ level: 'info', output: 'parsing' }],
          delay_ms: 0,
        },
        plan: {
          resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main' }] }],
          stop: { resources: [] },
        },
        apply: {
          logs: ['applying', { level: 'warn', stage: 'Custom stage', output: 'slow step', delay_ms: 20 }],
          start: { state: 'started', delay_ms: 10 },
          delete: { error: 'cannot delete today' },
        },
      },
      { 'README.md': 'ignored: echo.json has a readme' },
    );
    const logs: ProvisionerLog[] = [];
    const parsed = await echo.parse(parseInput(directory, { logs }));
    assert.equal(parsed.readme, '# Hello');
    assert.deepEqual(parsed.metadata, { description: 'An echo template', icon: '/icon/echo.svg' });
    assert.deepEqual(parsed.variables, [
      { name: 'region', description: '', type: 'string', default_value: 'eu', required: false, sensitive: false, value: 'eu' },
    ]);
    assert.deepEqual(parsed.parameters, [
      {
        name: 'size',
        display_name: '',
        description: '',
        type: 'number',
        form_type: 'input',
        mutable: false,
        ephemeral: false,
        required: false,
        default_value: '2',
        icon: '',
        order: 0,
        options: [],
        validation_min: 1,
        validation_max: null,
        validation_monotonic: '',
        validation_regex: '',
        validation_error: '',
      },
    ]);
    assert.deepEqual(parsed.presets, [{ name: 'Small', default: true, parameters: [{ name: 'size', value: '1' }] }]);
    assert.deepEqual(parsed.externalAuth, [
      { id: 'github', optional: false },
      { id: 'gitlab', optional: true },
    ]);
    assert.deepEqual(
      parsed.resources.map((resource) => resource.name),
      ['box'],
      'parse shows what a start plans',
    );
    assert.deepEqual(logs, [{ level: 'info', stage: 'Parsing template parameters', output: 'parsing' }]);

    assert.deepEqual((await echo.plan(buildInput(directory, { transition: 'stop' }))).resources, []);
    const applyLogs: ProvisionerLog[] = [];
    const started = await echo.apply({ ...buildInput(directory), log: (line) => applyLogs.push(line) });
    assert.deepEqual(
      started.resources.map((resource) => resource.name),
      ['box'],
      'apply falls back on the plan',
    );
    assert.equal(started.state.toString(), 'started');
    assert.deepEqual(applyLogs, [
      { level: 'info', stage: 'Starting workspace', output: 'applying' },
      { level: 'warn', stage: 'Custom stage', output: 'slow step' },
    ]);
    assert.equal((await rejection(echo.apply(buildInput(directory, { transition: 'delete' })))).message, 'cannot delete today');
  });

  it('fills every default of a resource and gives agents tokens only on apply', async () => {
    const directory = await echoDir({
      apply: {
        resources: [
          {
            agents: [
              {
                apps: [{ slug: 'web', url: 'http://localhost:3000', healthcheck: { url: 'http://localhost:3000/health' } }],
                scripts: [{ script: 'make' }],
              },
              { name: 'fixed', auth_token: 'known-token' },
            ],
          },
        ],
      },
    });
    const planned = await echo.plan(buildInput(directory));
    assert.deepEqual(planned.resources, [
      {
        name: 'resource-1',
        type: 'echo',
        hide: false,
        icon: '',
        daily_cost: 0,
        metadata: [],
        agents: [
          {
            name: 'main',
            directory: '',
            env: {},
            operating_system: 'linux',
            architecture: 'amd64',
            connection_timeout_seconds: 120,
            troubleshooting_url: '',
            display_apps: [],
            startup_script_behavior: 'non-blocking',
            auth_token: '',
            instance_id: '',
            scripts: [
              {
                display_name: 'Script 1',
                script: 'make',
                cron: '',
                run_on_start: true,
                run_on_stop: false,
                start_blocks_login: false,
                timeout: 0,
                log_path: '',
              },
            ],
            apps: [
              {
                slug: 'web',
                display_name: 'web',
                url: 'http://localhost:3000',
                command: '',
                icon: '',
                external: false,
                subdomain: false,
                share: 'owner',
                hidden: false,
                open_in: 'slim-window',
                group: '',
                healthcheck: { url: 'http://localhost:3000/health', interval: 5, threshold: 6 },
              },
            ],
          },
          {
            name: 'fixed',
            directory: '',
            env: {},
            operating_system: 'linux',
            architecture: 'amd64',
            connection_timeout_seconds: 120,
            troubleshooting_url: '',
            display_apps: [],
            startup_script_behavior: 'non-blocking',
            auth_token: '',
            instance_id: '',
            scripts: [],
            apps: [],
          },
        ],
      },
    ]);
    const first = await echo.apply(buildInput(directory));
    const second = await echo.apply(buildInput(directory));
    const [generated, fixed] = first.resources[0]?.agents ?? [];
    assert.match(generated?.auth_token ?? '', /^[0-9a-f-]{36}$/);
    assert.notEqual(second.resources[0]?.agents[0]?.auth_token, generated?.auth_token);
    assert.equal(fixed?.auth_token, 'known-token');
  });

  it('serves common resources to start and stop, and none to delete unless told', async () => {
    const directory = await echoDir({ plan: { resources: [{ name: 'a' }] }, apply: { delete: { resources: [{ name: 'ghost' }] } } });
    const names = async (transition: 'start' | 'stop' | 'delete', kind: 'plan' | 'apply'): Promise<string[]> =>
      (await echo[kind](buildInput(directory, { transition }))).resources.map((resource) => resource.name);
    assert.deepEqual(await names('start', 'plan'), ['a']);
    assert.deepEqual(await names('stop', 'plan'), ['a']);
    assert.deepEqual(await names('start', 'apply'), ['a']);
    assert.deepEqual(await names('delete', 'apply'), ['ghost']);
    assert.deepEqual(await names('delete', 'plan'), ['ghost'], 'plan falls back on apply');
    const plain = await echoDir({ plan: { resources: [{ name: 'a' }] } });
    assert.deepEqual((await echo.plan(buildInput(plain, { transition: 'delete' }))).resources, []);
  });

  it('waits the delays', async () => {
    const directory = await echoDir({ plan: { delay_ms: 40, logs: [{ output: 'x', delay_ms: 20 }] } });
    const started = Date.now();
    await echo.plan(buildInput(directory));
    assert.ok(Date.now() - started >= 55, 'both delays were waited');
  });

  it('cancels a delay when the job is canceled', async () => {
    const directory = await echoDir({ apply: { logs: ['about to wait'], delay_ms: 60_000 } });
    const controller = new AbortController();
    const started = Date.now();
    const error = await rejection(
      echo.apply({
        ...buildInput(directory),
        signal: controller.signal,
        // Cancel as soon as the step is under way.
        log: () => controller.abort(),
      }),
    );
    assert.ok(error instanceof ProvisionerCanceledError);
    assert.equal(error.message, 'canceled');
    assert.ok(Date.now() - started < 5_000);
  });

  it('hangs until canceled when told to', async () => {
    const directory = await echoDir({ plan: { logs: ['hanging'], hang: true } });
    const controller = new AbortController();
    const pending = echo.plan({ ...buildInput(directory), signal: controller.signal, log: () => setImmediate(() => controller.abort()) });
    assert.ok((await rejection(pending)) instanceof ProvisionerCanceledError);
    const aborted = AbortSignal.abort();
    assert.ok(
      (await rejection(echo.parse(parseInput(await echoDir({ parse: { delay_ms: 10 } }), { signal: aborted })))) instanceof
        ProvisionerCanceledError,
    );
  });

  it('fails with the error and error code echo.json gives', async () => {
    const directory = await echoDir({
      parse: { error: 'required template variables need values: region', error_code: 'REQUIRED_TEMPLATE_VARIABLES' },
      plan: { error: 'plan failed' },
    });
    const parseError = await rejection(echo.parse(parseInput(directory)));
    assert.equal(parseError.message, 'required template variables need values: region');
    assert.equal(parseError.code, 'REQUIRED_TEMPLATE_VARIABLES');
    const planError = await rejection(echo.plan(buildInput(directory)));
    assert.equal(planError.message, 'plan failed');
    assert.equal(planError.code, undefined);
  });

  it('fails with REQUIRED_TEMPLATE_VARIABLES when a required variable gets no value', async () => {
    const directory = await echoDir({
      parse: {
        variables: [
          { name: 'region', required: true },
          { name: 'zone', required: true },
          { name: 'size', default_value: '1' },
        ],
      },
    });
    const error = await rejection(echo.parse(parseInput(directory, { variableValues: [{ name: 'zone', value: 'a' }] })));
    assert.equal(error.code, 'REQUIRED_TEMPLATE_VARIABLES');
    assert.equal(error.message, 'required template variables need values: region');
    const parsed = await echo.parse(
      parseInput(directory, {
        variableValues: [
          { name: 'zone', value: 'a' },
          { name: 'region', value: 'eu' },
        ],
      }),
    );
    assert.deepEqual(
      parsed.variables.map((variable) => [variable.name, variable.required, variable.value]),
      [
        ['region', true, 'eu'],
        ['zone', true, 'a'],
        ['size', false, '1'],
      ],
    );
  });

  it('reads README.md when echo.json has no readme', async () => {
    assert.equal((await echo.parse(parseInput(await echoDir({}, { 'README.md': '# Echo\n' })))).readme, '# Echo\n');
  });

  it('refuses a malformed echo.json, naming the field', async () => {
    const cases: [unknown, string][] = [
      ['{not json', 'echo.json: not valid JSON: '],
      [[], 'echo.json: the file must be an object'],
      [{ parse: { delay: 5 } }, 'echo.json: parse.delay is not a known field'],
      [{ apply: { start: { delay_ms: 'soon' } } }, 'echo.json: apply.start.delay_ms must be an integer'],
      [{ plan: { state: 'x' } }, 'echo.json: plan.state is not a known field'],
      [
        { plan: { resources: [{ agents: [{ apps: [{ share: 'everyone' }] }] }] } },
        'echo.json: plan.resources[0].agents[0].apps[0].share must be one of owner, authenticated, organization, public',
      ],
      [{ parse: { error_code: 'OTHER' } }, 'echo.json: parse.error_code must be REQUIRED_TEMPLATE_VARIABLES or null'],
      [{ parse: { variables: [{ description: 'no name' }] } }, 'echo.json: parse.variables[0].name is required'],
    ];
    for (const [content, message] of cases) {
      const error = await rejection(echo.parse(parseInput(await echoDir(content))));
      assert.ok(error.message.startsWith(message), `${error.message} should start with ${message}`);
    }
    const missing = join(scratch, 'no-echo');
    await mkdir(missing, { recursive: true });
    assert.equal((await rejection(echo.parse(parseInput(missing)))).message, 'the template has no echo.json');
  });
});
