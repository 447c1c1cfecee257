import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pino } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import { createTar } from '../../src/lib/archive/index.js';
import {
  cancelableDelay,
  ProvisionerCanceledError,
  ProvisionerError,
  type BuildInput,
  type PlannedResource,
  type Provisioner,
} from '../../src/provisioner/provisioner.js';
import { runJob, startProvisionerDaemon, type JobIo, type JobReport } from '../../src/provisioner/runner/index.js';
import type { AcquiredJob, DaemonMessage, JobLogInput, ServerMessage } from '../../src/sdk/wire/provisioner-protocol.js';

const scratch = await mkdtemp(join(tmpdir(), 'cove-runner-'));
after(() => rm(scratch, { recursive: true, force: true }));
const archive = (await createTar({ 'README.md': '# Hello', 'main.txt': 'template' })).toString('base64');

let counter = 0;
function job(overrides: Partial<AcquiredJob> = {}): AcquiredJob {
  counter += 1;
  return {
    job_id: `job-${counter}`,
    type: 'template_version_import',
    created_at: new Date(0).toISOString(),
    provisioner: 'test',
    initiator_username: 'alice',
    access_url: 'http://cove.test',
    archive_base64: archive,
    user_variable_values: [{ name: 'region', value: 'eu' }],
    rich_parameter_values: [],
    workspace: null,
    workspace_build_id: null,
    transition: 'start',
    previous_state_base64: null,
    log_level: '',
    ...overrides,
  };
}

function resource(name: string): PlannedResource {
  return { name, type: 'directory', hide: false, icon: '', daily_cost: 0, metadata: [], agents: [] };
}

function provisioner(overrides: Partial<Provisioner> = {}): Provisioner {
  return {
    name: 'test',
    parse: async () => ({ readme: '', variables: [], parameters: [], presets: [], externalAuth: [], resources: [], metadata: {} }),
    plan: async () => ({ resources: [] }),
    apply: async () => ({ resources: [], state: Buffer.alloc(0) }),
    ...overrides,
  };
}

/** Collects what a job sends; `until` resolves once a sent message satisfies a predicate. */
class Sink {
  readonly messages: DaemonMessage[] = [];
  readonly #events = new EventEmitter();

  readonly send = (message: DaemonMessage): void => {
    this.messages.push(message);
    this.#events.emit('message');
  };

  get logs(): JobLogInput[] {
    // The lines of `update`s, then the last ones the report carries.
    return this.messages.flatMap((message) =>
      message.type === 'acquire' || message.type === 'cancel_acquire' ? [] : (message.logs ?? []),
    );
  }

  get headers(): string[] {
    return this.logs.filter((line) => line.source === 'provisioner_daemon' && line.output === '').map((line) => line.stage);
  }

  until(predicate: (sink: Sink) => boolean): Promise<void> {
    return waitFor(this.#events, 'message', () => predicate(this));
  }
}

async function waitFor(events: EventEmitter, event: string, done: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = AbortSignal.timeout(timeoutMs);
  while (!done()) await once(events, event, { signal: deadline });
}

async function run(
  acquired: AcquiredJob,
  subject: Provisioner,
  io: Partial<JobIo> & { sink?: Sink } = {},
): Promise<{ report: JobReport; sink: Sink; workDirectory: string }> {
  const sink = io.sink ?? new Sink();
  const workDirectory = await mkdtemp(join(scratch, 'work-'));
  const report = await runJob(acquired, subject, {
    send: sink.send,
    signal: new AbortController().signal,
    workDirectory,
    now: () => new Date(),
    ...io,
  });
  assert.deepEqual(sink.messages.at(-1), report, 'the report is the last message sent');
  assert.deepEqual(await readdir(workDirectory), [], 'the job directory is removed');
  // The lines are checked through the sink; the report's own fields are what the tests compare.
  const { logs: _lines, ...fields } = report;
  return { report: fields, sink, workDirectory };
}

describe('runJob', () => {
  it('imports a template version through the reference stages', async () => {
    const plans: BuildInput[] = [];
    let directory = '';
    const subject = provisioner({
      parse: async (input) => {
        directory = input.directory;
        input.log({ level: 'info', stage: 'Parsing template parameters', output: 'reading' });
        return {
          readme: await readFile(join(input.directory, 'README.md'), 'utf8'),
          variables: [
            {
              name: 'region',
              description: '',
              type: 'string',
              default_value: 'us',
              required: false,
              sensitive: false,
              value: input.variableValues[0]?.value ?? '',
            },
          ],
          parameters: [
            {
              name: 'cpus',
              display_name: 'CPUs',
              description: '',
              type: 'number',
              form_type: 'input',
              mutable: true,
              ephemeral: false,
              required: false,
              default_value: '2',
              icon: '',
              order: 0,
              options: [],
              validation_min: 1,
              validation_max: 8,
              validation_monotonic: '',
              validation_regex: '',
              validation_error: '',
            },
          ],
          presets: [{ name: 'Small', default: true, parameters: [{ name: 'cpus', value: '1' }] }],
          externalAuth: [{ id: 'github', optional: true }],
          resources: [],
          metadata: {},
        };
      },
      plan: async (input) => {
        plans.push(input);
        input.log({ level: 'info', stage: 'Planning infrastructure', output: `planning ${input.transition}` });
        input.log({ level: 'debug', stage: 'Planning infrastructure', output: 'dropped below the job log level' });
        return { resources: input.transition === 'start' ? [resource('home'), resource('dev')] : [resource('home')] };
      },
    });
    const { report, sink } = await run(job(), subject);

    assert.deepEqual(sink.headers, [
      'Setting up',
      'Parsing template parameters',
      'Detecting persistent resources',
      'Detecting ephemeral resources',
      'Cleaning Up',
    ]);
    assert.deepEqual(
      sink.logs.filter((line) => line.source === 'provisioner').map((line) => [line.stage, line.level, line.output]),
      [
        ['Parsing template parameters', 'info', 'reading'],
        ['Detecting persistent resources', 'info', 'planning start'],
        ['Detecting ephemeral resources', 'info', 'planning stop'],
      ],
    );
    assert.deepEqual(
      plans.map((input) => [input.transition, input.workspace.start_count, input.workspace.owner, input.parameterValues]),
      [
        ['start', 1, 'alice', [{ name: 'cpus', value: '2' }]],
        ['stop', 0, 'alice', [{ name: 'cpus', value: '2' }]],
      ],
    );
    assert.equal(report.type, 'complete');
    assert.ok(report.type === 'complete' && report.result.type === 'template_version_import');
    assert.equal(report.result.readme, '# Hello');
    assert.equal(report.result.variables[0]?.value, 'eu');
    assert.deepEqual(report.result.external_auth, [{ id: 'github', optional: true }]);
    assert.deepEqual(
      report.result.start_resources.map((entry) => entry.name),
      ['home', 'dev'],
    );
    assert.deepEqual(
      report.result.stop_resources.map((entry) => entry.name),
      ['home'],
    );
    assert.equal(existsSync(directory), false);
  });

  it('runs a dry run and builds under their stages, passing the previous state', async () => {
    const dryRun = await run(
      job({ type: 'template_version_dry_run', rich_parameter_values: [{ name: 'cpus', value: '4' }] }),
      provisioner({
        plan: async (input) => ({ resources: [resource(`cpus-${input.parameterValues[0]?.value}`)] }),
      }),
    );
    assert.deepEqual(dryRun.sink.headers, ['Setting up', 'Planning infrastructure', 'Cleaning Up']);
    assert.deepEqual(dryRun.report.type === 'complete' && dryRun.report.result, {
      type: 'template_version_dry_run',
      resources: [resource('cpus-4')],
    });

    const workspace = { id: 'w-1', name: 'dev', owner: 'alice', owner_id: 'u-1', start_count: 1 };
    const subject = provisioner({
      apply: async (input) => ({
        resources: [resource(input.transition)],
        state: Buffer.from(`${input.previousState?.toString() ?? 'none'}+${input.transition}`),
      }),
    });
    const build = await run(
      job({ type: 'workspace_build', workspace, transition: 'delete', previous_state_base64: Buffer.from('old').toString('base64') }),
      subject,
    );
    assert.deepEqual(build.sink.headers, ['Setting up', 'Destroying workspace', 'Cleaning Up']);
    assert.ok(build.report.type === 'complete' && build.report.result.type === 'workspace_build');
    assert.equal(Buffer.from(build.report.result.state_base64, 'base64').toString(), 'old+delete');
  });

  it('sends logs in batches of at most 100 and flushes a partial batch after the delay', async () => {
    const sink = new Sink();
    const subject = provisioner({
      apply: async (input) => {
        for (let index = 0; index < 250; index += 1) input.log({ level: 'info', stage: 'Starting workspace', output: `line ${index}` });
        // The last 50 lines (plus the headers) go out on the flush timer, while the apply still runs.
        await sink.until(() => sink.logs.some((line) => line.output === 'line 249'));
        return { resources: [], state: Buffer.alloc(0) };
      },
    });
    const { report } = await run(
      job({ type: 'workspace_build', workspace: { id: 'w', name: 'w', owner: 'a', owner_id: 'u', start_count: 1 } }),
      subject,
      { sink, logFlushMs: 20 },
    );
    assert.equal(report.type, 'complete');
    const updates = sink.messages.flatMap((message) => (message.type === 'update' ? [message.logs.length] : []));
    assert.ok(
      updates.every((size) => size <= 100),
      `update sizes ${updates.join(',')}`,
    );
    assert.equal(updates.filter((size) => size === 100).length, 2, `update sizes ${updates.join(',')}`);
    assert.equal(sink.logs.filter((line) => line.source === 'provisioner').length, 250);
  });

  it('sends the lines not sent yet with the report, not in an update of their own', async () => {
    const { sink } = await run(job(), provisioner({}), { logFlushMs: 60_000, updateIntervalMs: 60_000 });
    assert.deepEqual(
      sink.messages.map((message) => message.type),
      ['complete'],
      'a job shorter than the flush delay sends only its report',
    );
    const report = sink.messages[0];
    assert.ok(report?.type === 'complete');
    assert.deepEqual(
      report.logs?.filter((line) => line.output === '').map((line) => line.stage),
      ['Setting up', 'Parsing template parameters', 'Detecting persistent resources', 'Detecting ephemeral resources', 'Cleaning Up'],
    );
  });

  it('sends heartbeat updates while a step is silent', async () => {
    const sink = new Sink();
    const heartbeats = (): number => sink.messages.filter((message) => message.type === 'update' && message.logs.length === 0).length;
    const subject = provisioner({
      plan: async () => {
        await sink.until(() => heartbeats() >= 2);
        return { resources: [] };
      },
    });
    const { report } = await run(job(), subject, { sink, logFlushMs: 5, updateIntervalMs: 20 });
    assert.equal(report.type, 'complete');
  });

  it('reports a cancel mid-apply as a canceled fail, keeping the partial state', async () => {
    const sink = new Sink();
    const controller = new AbortController();
    const subject = provisioner({
      apply: async (input) => {
        input.log({ level: 'info', stage: 'Starting workspace', output: 'applying' });
        try {
          await cancelableDelay(Number.POSITIVE_INFINITY, input.signal);
        } catch (error) {
          assert.ok(error instanceof ProvisionerCanceledError);
          throw new ProvisionerCanceledError(Buffer.from('partial'));
        }
        return { resources: [], state: Buffer.alloc(0) };
      },
    });
    void sink.until(() => sink.logs.some((line) => line.output === 'applying')).then(() => controller.abort());
    const workspace = { id: 'w', name: 'w', owner: 'a', owner_id: 'u', start_count: 1 };
    const { report } = await run(job({ type: 'workspace_build', workspace }), subject, { sink, signal: controller.signal, logFlushMs: 5 });
    assert.deepEqual(report, {
      type: 'fail',
      job_id: report.job_id,
      error: 'canceled',
      canceled: true,
      state_base64: Buffer.from('partial').toString('base64'),
    });
    assert.equal(sink.headers.at(-1), 'Cleaning Up');
  });

  it('maps a ProvisionerError to error and error_code, with error log lines', async () => {
    const subject = provisioner({
      parse: async () => {
        throw new ProvisionerError('required template variables need values: region', { code: 'REQUIRED_TEMPLATE_VARIABLES' });
      },
    });
    const { report, sink } = await run(job(), subject);
    assert.deepEqual(report, {
      type: 'fail',
      job_id: report.job_id,
      error: 'required template variables need values: region',
      error_code: 'REQUIRED_TEMPLATE_VARIABLES',
    });
    assert.deepEqual(
      sink.logs.filter((line) => line.level === 'error').map((line) => [line.stage, line.output]),
      [['Parsing template parameters', 'required template variables need values: region']],
    );

    const withIssues = await run(
      job(),
      provisioner({
        parse: async () => {
          throw new ProvisionerError('the template is invalid', {
            issues: [{ file: 'template.yaml', line: 3, field: 'parameters[0].type', message: 'must be a type' }],
          });
        },
      }),
    );
    assert.deepEqual(
      withIssues.sink.logs.filter((line) => line.level === 'error').map((line) => line.output),
      ['the template is invalid', 'template.yaml:3: parameters[0].type must be a type'],
    );
  });

  it('fails a job whose archive cannot be extracted, naming the problem', async () => {
    let called = false;
    const subject = provisioner({
      parse: async () => {
        called = true;
        throw new Error('not reached');
      },
    });
    const { report, sink } = await run(
      job({ archive_base64: Buffer.from('this is not a tar archive'.repeat(30)).toString('base64') }),
      subject,
    );
    assert.equal(report.type, 'fail');
    assert.match(report.type === 'fail' ? report.error : '', /^the template archive could not be extracted: archive is not a valid tar/);
    assert.equal(called, false);
    assert.deepEqual(sink.headers, ['Setting up', 'Cleaning Up']);
  });

  it('reports any other exception as an internal provisioner error', async () => {
    const { report } = await run(job(), provisioner({ parse: () => Promise.reject(new TypeError('boom')) }));
    assert.deepEqual(report, { type: 'fail', job_id: report.job_id, error: 'internal provisioner error: boom' });
  });
});

/** A stand-in for the daemon's endpoint, speaking just enough of the protocol to drive the runner. */
class FakeDaemon {
  readonly server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  readonly connections: WebSocket[] = [];
  readonly urls: string[] = [];
  readonly received: { readonly connection: number; readonly message: DaemonMessage }[] = [];
  readonly #events = new EventEmitter();

  constructor() {
    this.server.on('connection', (socket, request) => {
      const connection = this.connections.push(socket) - 1;
      this.urls.push(request.url ?? '');
      socket.on('message', (data) => {
        this.received.push({ connection, message: JSON.parse(String(data)) as DaemonMessage });
        this.#events.emit('change');
      });
      this.#events.emit('change');
    });
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Waits for a message on connection `connection` satisfying `match`, then returns it. */
  async next<Type extends DaemonMessage['type']>(
    connection: number,
    type: Type,
    match: (message: Extract<DaemonMessage, { type: Type }>) => boolean = () => true,
  ): Promise<Extract<DaemonMessage, { type: Type }>> {
    const find = (): Extract<DaemonMessage, { type: Type }> | undefined =>
      this.received.find(
        (entry): boolean =>
          entry.connection === connection && entry.message.type === type && match(entry.message as Extract<DaemonMessage, { type: Type }>),
      )?.message as Extract<DaemonMessage, { type: Type }> | undefined;
    await waitFor(this.#events, 'change', () => find() !== undefined);
    return find() as Extract<DaemonMessage, { type: Type }>;
  }

  async connection(index: number): Promise<WebSocket> {
    await waitFor(this.#events, 'change', () => this.connections[index] !== undefined);
    return this.connections[index] as WebSocket;
  }

  send(connection: number, message: ServerMessage): void {
    this.connections[connection]?.send(JSON.stringify(message));
  }
}

describe('startProvisionerDaemon', () => {
  it('acquires, runs and reports jobs, and reconnects after the connection drops', async () => {
    const fake = new FakeDaemon();
    await once(fake.server, 'listening');
    after(() => new Promise<void>((resolve) => fake.server.close(() => resolve())));
    let release: () => void = () => undefined;
    const subject = provisioner({
      apply: async (input) => {
        input.log({ level: 'info', stage: 'Starting workspace', output: `applying ${input.workspace.name}` });
        if (input.workspace.name === 'slow') await new Promise<void>((resolve) => (release = resolve));
        return { resources: [resource('dev')], state: Buffer.from('state') };
      },
    });
    const daemon = startProvisionerDaemon({
      url: fake.url,
      organization: 'default',
      id: 'd-1',
      name: 'runner-test',
      tags: { scope: 'organization' },
      key: 'secret',
      provisioners: new Map([['test', subject]]),
      workDirectory: join(scratch, 'daemon'),
      logger: pino({ level: 'silent' }),
      logFlushMs: 5,
      updateIntervalMs: 50,
      reconnect: { initialMs: 10, maxMs: 50 },
    });
    const workspace = { id: 'w', name: 'quick', owner: 'a', owner_id: 'u', start_count: 1 };

    await fake.next(0, 'acquire');
    assert.match(fake.urls[0] ?? '', /provisionerdaemons\/serve\?.*provisioner=test/);
    const first = job({ type: 'workspace_build', workspace });
    fake.send(0, { type: 'job', job: first });
    const completed = await fake.next(0, 'complete');
    assert.equal(completed.job_id, first.job_id);
    assert.equal(completed.acquire, true, 'the report asks for the next job');
    // The lines come in `update`s or, the last of them, with the report (a job shorter than the flush delay sends no update).
    const lines = fake.received.flatMap(({ message }) => ('logs' in message ? (message.logs ?? []) : []));
    assert.ok(lines.some((line) => line.output === 'applying quick'));
    fake.send(0, { type: 'ack', job_id: first.job_id });
    await daemon.waitForJobs(1);

    // A drop while idle: the daemon reconnects and asks for work again.
    assert.equal(fake.received.filter((entry) => entry.message.type === 'acquire').length, 1, 'no acquire besides the report');
    (await fake.connection(0)).close();
    await fake.next(1, 'acquire');
    assert.equal(daemon.connected, true);

    // A drop while a job runs: the job carries on and its report arrives on the next connection.
    const slow = job({ type: 'workspace_build', workspace: { ...workspace, name: 'slow' } });
    fake.send(1, { type: 'job', job: slow });
    await fake.next(1, 'update', (message) => message.logs.some((line) => line.output === 'applying slow'));
    (await fake.connection(1)).close();
    await fake.connection(2);
    release();
    const resent = await fake.next(2, 'complete');
    assert.deepEqual([resent.job_id, resent.acquire], [slow.job_id, true]);
    fake.send(2, { type: 'ack', job_id: slow.job_id });
    await daemon.waitForJobs(2);
    const onThird = fake.received.filter((entry) => entry.connection === 2).map((entry) => entry.message.type);
    assert.deepEqual(onThird, ['complete'], 'the report asks for the next job; nothing else is sent');

    // Stopping withdraws the acquire the report made, then closes.
    const stopped = daemon.stop();
    await fake.next(2, 'cancel_acquire');
    fake.send(2, { type: 'no_job' });
    await stopped;
    assert.equal(daemon.connected, false);
  });

  it('cancels the running job when told to, and on stop', async () => {
    const fake = new FakeDaemon();
    await once(fake.server, 'listening');
    after(() => new Promise<void>((resolve) => fake.server.close(() => resolve())));
    const subject = provisioner({
      apply: async (input) => {
        input.log({ level: 'info', stage: 'Starting workspace', output: 'waiting' });
        await cancelableDelay(Number.POSITIVE_INFINITY, input.signal);
        return { resources: [], state: Buffer.alloc(0) };
      },
    });
    const daemon = startProvisionerDaemon({
      url: fake.url,
      organization: 'default',
      id: 'd-2',
      name: 'cancel-test',
      tags: {},
      sessionToken: 'token',
      provisioners: new Map([['test', subject]]),
      workDirectory: join(scratch, 'daemon'),
      logger: pino({ level: 'silent' }),
      logFlushMs: 5,
    });
    const workspace = { id: 'w', name: 'w', owner: 'a', owner_id: 'u', start_count: 1 };

    await fake.next(0, 'acquire');
    const first = job({ type: 'workspace_build', workspace });
    fake.send(0, { type: 'job', job: first });
    await fake.next(0, 'update', (message) => message.logs.some((line) => line.output === 'waiting'));
    fake.send(0, { type: 'update_ack', job_id: first.job_id, canceled: true });
    const { logs: _lastLines, ...failed } = await fake.next(0, 'fail');
    assert.deepEqual(failed, { type: 'fail', job_id: first.job_id, error: 'canceled', canceled: true, acquire: true });
    fake.send(0, { type: 'ack', job_id: first.job_id });

    // The report asked for the next job: it comes without another acquire.
    const second = job({ type: 'workspace_build', workspace });
    fake.send(0, { type: 'job', job: second });
    await fake.next(0, 'update', (message) => message.job_id === second.job_id && message.logs.some((line) => line.output === 'waiting'));
    const stopped = daemon.stop();
    const last = await fake.next(0, 'fail', (message) => message.job_id === second.job_id);
    assert.deepEqual([last.canceled, last.acquire], [true, undefined], 'a report made while stopping asks for nothing');
    fake.send(0, { type: 'ack', job_id: second.job_id });
    await stopped;
    assert.equal(daemon.jobsFinished, 2);
  });
});
