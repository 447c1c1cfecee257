import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultFormType } from '../../sdk/wire/parameter-value.js';
import type { VariableDeclaration } from '../native/variables.js';
import {
  ProvisionerError,
  type ShareLevel,
  type ExternalAuthRequirement,
  type LogLevel,
  type PlannedAgent,
  type PlannedAgentMetadata,
  type PlannedApp,
  type PlannedResource,
  type PlannedScript,
  type Preset,
  type ProvisionerErrorCode,
  type RichParameter,
  type Transition,
} from '../provisioner.js';

/** The file the echo provisioner reads from a template directory. */
export const ECHO_FILE_NAME = 'echo.json';

/** A log line to emit, after waiting `delay_ms`. */
export interface EchoLog {
  readonly level: LogLevel;
  readonly stage: string | undefined;
  readonly output: string;
  readonly delay_ms: number;
}

/** One step (parse, a plan or an apply) as written; what is left out falls back to something else. */
export interface EchoStep {
  readonly resources?: readonly PlannedResource[];
  readonly logs?: readonly EchoLog[];
  readonly delay_ms?: number;
  /** Wait until the job is canceled instead of finishing. */
  readonly hang?: boolean;
  readonly error?: string | null;
  readonly error_code?: ProvisionerErrorCode | null;
  /** apply only: the state to return, as text. */
  readonly state?: string;
}

/** A plan or apply section: fields for every transition, and per-transition overrides. */
export interface EchoSection {
  readonly all: EchoStep;
  readonly byTransition: Readonly<Partial<Record<Transition, EchoStep>>>;
}

/** The parse section: a step plus everything an import stores. */
export interface EchoParse extends EchoStep {
  readonly readme?: string;
  readonly description?: string;
  readonly icon?: string;
  readonly variables: readonly VariableDeclaration[];
  readonly parameters: readonly RichParameter[];
  readonly presets: readonly Preset[];
  readonly externalAuth: readonly ExternalAuthRequirement[];
}

/** A read and checked `echo.json`. */
export interface EchoFile {
  readonly parse: EchoParse;
  readonly plan: EchoSection;
  readonly apply: EchoSection;
}

/** Reads `echo.json` from a template directory. Throws ProvisionerError naming the bad field. */
export async function loadEchoFile(directory: string): Promise<EchoFile> {
  let text: string;
  try {
    text = await readFile(join(directory, ECHO_FILE_NAME), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ProvisionerError(`the template has no ${ECHO_FILE_NAME}`);
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ProvisionerError(`${ECHO_FILE_NAME}: not valid JSON: ${(error as Error).message}`);
  }
  return readEchoFile(json);
}

/** Checks a parsed `echo.json` value and fills in every default. */
export function readEchoFile(json: unknown): EchoFile {
  const root = object(json, '') ?? {};
  known(root, '', ['parse', 'plan', 'apply']);
  return {
    parse: readParse(object(root['parse'], 'parse') ?? {}),
    plan: readSection(root['plan'], 'plan', false),
    apply: readSection(root['apply'], 'apply', true),
  };
}

const STEP_FIELDS = ['resources', 'logs', 'delay_ms', 'hang', 'error', 'error_code'];
const TRANSITIONS: readonly Transition[] = ['start', 'stop', 'delete'];

function readParse(value: Record<string, unknown>): EchoParse {
  const at = 'parse';
  known(value, at, [...STEP_FIELDS, 'readme', 'description', 'icon', 'variables', 'parameters', 'presets', 'external_auth']);
  return {
    ...readStep(value, at, false),
    ...optional('readme', text(value, 'readme', at)),
    ...optional('description', text(value, 'description', at)),
    ...optional('icon', text(value, 'icon', at)),
    variables: list(value, 'variables', at).map((item, index) => readVariable(item, `${at}.variables[${index}]`)),
    parameters: list(value, 'parameters', at).map((item, index) => readParameter(item, `${at}.parameters[${index}]`, index)),
    presets: list(value, 'presets', at).map((item, index) => readPreset(item, `${at}.presets[${index}]`)),
    externalAuth: list(value, 'external_auth', at).map((item, index) => readExternalAuth(item, `${at}.external_auth[${index}]`)),
  };
}

function readSection(value: unknown, at: string, isApply: boolean): EchoSection {
  const section = object(value, at) ?? {};
  known(section, at, [...STEP_FIELDS, ...(isApply ? ['state'] : []), ...TRANSITIONS]);
  const byTransition: Partial<Record<Transition, EchoStep>> = {};
  for (const transition of TRANSITIONS) {
    const step = object(section[transition], `${at}.${transition}`);
    if (!step) continue;
    known(step, `${at}.${transition}`, [...STEP_FIELDS, ...(isApply ? ['state'] : [])]);
    byTransition[transition] = readStep(step, `${at}.${transition}`, isApply);
  }
  return { all: readStep(section, at, isApply), byTransition };
}

function readStep(value: Record<string, unknown>, at: string, isApply: boolean): EchoStep {
  const errorCode = value['error_code'];
  if (errorCode !== undefined && errorCode !== null && errorCode !== 'REQUIRED_TEMPLATE_VARIABLES') {
    throw invalid(`${at}.error_code`, 'must be REQUIRED_TEMPLATE_VARIABLES or null');
  }
  const error = value['error'];
  if (error !== undefined && error !== null && typeof error !== 'string') throw invalid(`${at}.error`, 'must be a string or null');
  return {
    ...optional(
      'resources',
      value['resources'] === undefined
        ? undefined
        : list(value, 'resources', at).map((item, index) => readResource(item, `${at}.resources[${index}]`, index)),
    ),
    ...optional(
      'logs',
      value['logs'] === undefined ? undefined : list(value, 'logs', at).map((item, index) => readLog(item, `${at}.logs[${index}]`)),
    ),
    ...optional('delay_ms', nonNegative(value, 'delay_ms', at)),
    ...optional('hang', flag(value, 'hang', at)),
    ...optional('error', error as string | null | undefined),
    ...optional('error_code', errorCode as ProvisionerErrorCode | null | undefined),
    ...optional('state', isApply ? text(value, 'state', at) : undefined),
  };
}

const LEVELS: readonly LogLevel[] = ['trace', 'debug', 'info', 'warn', 'error'];

function readLog(item: unknown, at: string): EchoLog {
  // A bare string is an info line.
  if (typeof item === 'string') return { level: 'info', stage: undefined, output: item, delay_ms: 0 };
  const value = required(item, at);
  known(value, at, ['level', 'stage', 'output', 'delay_ms']);
  return {
    level: oneOf(value, 'level', at, LEVELS) ?? 'info',
    stage: text(value, 'stage', at),
    output: text(value, 'output', at) ?? '',
    delay_ms: nonNegative(value, 'delay_ms', at) ?? 0,
  };
}

function readVariable(item: unknown, at: string): VariableDeclaration {
  const value = required(item, at);
  known(value, at, ['name', 'description', 'type', 'default_value', 'required', 'sensitive']);
  return {
    name: name(value, at),
    description: text(value, 'description', at) ?? '',
    type: oneOf(value, 'type', at, ['string', 'number', 'bool'] as const) ?? 'string',
    default_value: text(value, 'default_value', at) ?? '',
    required: flag(value, 'required', at) ?? false,
    sensitive: flag(value, 'sensitive', at) ?? false,
  };
}

function readParameter(item: unknown, at: string, index: number): RichParameter {
  const value = required(item, at);
  known(value, at, [
    'name',
    'display_name',
    'description',
    'type',
    'form_type',
    'mutable',
    'ephemeral',
    'required',
    'default_value',
    'icon',
    'order',
    'options',
    'validation_min',
    'validation_max',
    'validation_monotonic',
    'validation_regex',
    'validation_error',
  ]);
  const type = oneOf(value, 'type', at, ['string', 'number', 'bool', 'list(string)'] as const) ?? 'string';
  const options = list(value, 'options', at).map((option, o) => {
    const entry = required(option, `${at}.options[${o}]`);
    known(entry, `${at}.options[${o}]`, ['name', 'description', 'value', 'icon']);
    return {
      name: text(entry, 'name', `${at}.options[${o}]`) ?? '',
      description: text(entry, 'description', `${at}.options[${o}]`) ?? '',
      value: text(entry, 'value', `${at}.options[${o}]`) ?? '',
      icon: text(entry, 'icon', `${at}.options[${o}]`) ?? '',
    };
  });
  const defaultValue = text(value, 'default_value', at);
  return {
    name: name(value, at),
    display_name: text(value, 'display_name', at) ?? '',
    description: text(value, 'description', at) ?? '',
    type,
    form_type: text(value, 'form_type', at) ?? defaultFormType(type, options.length > 0),
    mutable: flag(value, 'mutable', at) ?? false,
    ephemeral: flag(value, 'ephemeral', at) ?? false,
    required: flag(value, 'required', at) ?? defaultValue === undefined,
    default_value: defaultValue ?? '',
    icon: text(value, 'icon', at) ?? '',
    order: integer(value, 'order', at) ?? index,
    options,
    validation_min: integer(value, 'validation_min', at) ?? null,
    validation_max: integer(value, 'validation_max', at) ?? null,
    validation_monotonic: oneOf(value, 'validation_monotonic', at, ['', 'increasing', 'decreasing'] as const) ?? '',
    validation_regex: text(value, 'validation_regex', at) ?? '',
    validation_error: text(value, 'validation_error', at) ?? '',
  };
}

function readPreset(item: unknown, at: string): Preset {
  const value = required(item, at);
  known(value, at, ['name', 'default', 'parameters']);
  return {
    name: name(value, at),
    default: flag(value, 'default', at) ?? false,
    parameters: list(value, 'parameters', at).map((entry, index) => {
      const pair = required(entry, `${at}.parameters[${index}]`);
      known(pair, `${at}.parameters[${index}]`, ['name', 'value']);
      return { name: name(pair, `${at}.parameters[${index}]`), value: text(pair, 'value', `${at}.parameters[${index}]`) ?? '' };
    }),
  };
}

function readExternalAuth(item: unknown, at: string): ExternalAuthRequirement {
  if (typeof item === 'string') return { id: item, optional: false };
  const value = required(item, at);
  known(value, at, ['id', 'optional']);
  const id = text(value, 'id', at);
  if (!id) throw invalid(`${at}.id`, 'is required');
  return { id, optional: flag(value, 'optional', at) ?? false };
}

function readResource(item: unknown, at: string, index: number): PlannedResource {
  const value = required(item, at);
  known(value, at, ['name', 'type', 'hide', 'icon', 'daily_cost', 'metadata', 'agents']);
  return {
    name: text(value, 'name', at) ?? `resource-${index + 1}`,
    type: text(value, 'type', at) ?? 'echo',
    hide: flag(value, 'hide', at) ?? false,
    icon: text(value, 'icon', at) ?? '',
    daily_cost: nonNegative(value, 'daily_cost', at) ?? 0,
    metadata: list(value, 'metadata', at).map((entry, m) => {
      const meta = required(entry, `${at}.metadata[${m}]`);
      known(meta, `${at}.metadata[${m}]`, ['key', 'value', 'sensitive']);
      return {
        key: text(meta, 'key', `${at}.metadata[${m}]`) ?? '',
        value: text(meta, 'value', `${at}.metadata[${m}]`) ?? '',
        sensitive: flag(meta, 'sensitive', `${at}.metadata[${m}]`) ?? false,
      };
    }),
    agents: list(value, 'agents', at).map((agent, a) => readAgent(agent, `${at}.agents[${a}]`, a)),
  };
}

function readAgent(item: unknown, at: string, index: number): PlannedAgent {
  const value = required(item, at);
  known(value, at, [
    'name',
    'directory',
    'env',
    'operating_system',
    'architecture',
    'connection_timeout_seconds',
    'troubleshooting_url',
    'display_apps',
    'startup_script_behavior',
    'auth_token',
    'instance_id',
    'scripts',
    'apps',
    'metadata',
  ]);
  const env = object(value['env'], `${at}.env`) ?? {};
  for (const [key, entry] of Object.entries(env)) if (typeof entry !== 'string') throw invalid(`${at}.env.${key}`, 'must be a string');
  return {
    name: text(value, 'name', at) ?? (index === 0 ? 'main' : `agent-${index + 1}`),
    directory: text(value, 'directory', at) ?? '',
    env: env as Record<string, string>,
    operating_system: text(value, 'operating_system', at) ?? 'linux',
    architecture: text(value, 'architecture', at) ?? 'amd64',
    connection_timeout_seconds: nonNegative(value, 'connection_timeout_seconds', at) ?? 120,
    troubleshooting_url: text(value, 'troubleshooting_url', at) ?? '',
    display_apps: list(value, 'display_apps', at).map((entry, d) =>
      typeof entry === 'string' ? entry : fail(`${at}.display_apps[${d}]`, 'must be a string'),
    ),
    startup_script_behavior: oneOf(value, 'startup_script_behavior', at, ['blocking', 'non-blocking'] as const) ?? 'non-blocking',
    auth_token: text(value, 'auth_token', at) ?? '',
    instance_id: text(value, 'instance_id', at) ?? '',
    scripts: list(value, 'scripts', at).map((script, s) => readScript(script, `${at}.scripts[${s}]`, s)),
    apps: list(value, 'apps', at).map((app, p) => readApp(app, `${at}.apps[${p}]`, p)),
    ...(value['metadata'] === undefined
      ? {}
      : { metadata: list(value, 'metadata', at).map((item, m) => readAgentMetadata(item, `${at}.metadata[${m}]`)) }),
  };
}

function readAgentMetadata(item: unknown, at: string): PlannedAgentMetadata {
  const value = required(item, at);
  known(value, at, ['key', 'display_name', 'script', 'interval', 'timeout', 'order']);
  const key = text(value, 'key', at);
  if (!key) throw invalid(`${at}.key`, 'is required');
  return {
    key,
    display_name: text(value, 'display_name', at) ?? key,
    script: text(value, 'script', at) ?? '',
    interval: nonNegative(value, 'interval', at) ?? 0,
    timeout: nonNegative(value, 'timeout', at) ?? 0,
    order: integer(value, 'order', at) ?? 0,
  };
}

function readScript(item: unknown, at: string, index: number): PlannedScript {
  const value = required(item, at);
  known(value, at, ['display_name', 'script', 'cron', 'run_on_start', 'run_on_stop', 'start_blocks_login', 'timeout', 'log_path']);
  const runOnStop = flag(value, 'run_on_stop', at) ?? false;
  const cron = text(value, 'cron', at) ?? '';
  return {
    display_name: text(value, 'display_name', at) ?? `Script ${index + 1}`,
    script: text(value, 'script', at) ?? '',
    cron,
    run_on_start: flag(value, 'run_on_start', at) ?? (!runOnStop && cron === ''),
    run_on_stop: runOnStop,
    start_blocks_login: flag(value, 'start_blocks_login', at) ?? false,
    timeout: nonNegative(value, 'timeout', at) ?? 0,
    log_path: text(value, 'log_path', at) ?? '',
  };
}

const SHARES: readonly ShareLevel[] = ['owner', 'authenticated', 'organization', 'public'];

function readApp(item: unknown, at: string, index: number): PlannedApp {
  const value = required(item, at);
  known(value, at, [
    'slug',
    'display_name',
    'url',
    'command',
    'icon',
    'external',
    'subdomain',
    'share',
    'hidden',
    'open_in',
    'group',
    'healthcheck',
  ]);
  const slug = text(value, 'slug', at) ?? `app-${index + 1}`;
  const check = object(value['healthcheck'], `${at}.healthcheck`);
  if (check) known(check, `${at}.healthcheck`, ['url', 'interval', 'threshold']);
  return {
    slug,
    display_name: text(value, 'display_name', at) ?? slug,
    url: text(value, 'url', at) ?? '',
    command: text(value, 'command', at) ?? '',
    icon: text(value, 'icon', at) ?? '',
    external: flag(value, 'external', at) ?? false,
    subdomain: flag(value, 'subdomain', at) ?? false,
    share: oneOf(value, 'share', at, SHARES) ?? 'owner',
    hidden: flag(value, 'hidden', at) ?? false,
    open_in: oneOf(value, 'open_in', at, ['slim-window', 'tab'] as const) ?? 'slim-window',
    group: text(value, 'group', at) ?? '',
    healthcheck: check
      ? {
          url: text(check, 'url', `${at}.healthcheck`) ?? '',
          interval: nonNegative(check, 'interval', `${at}.healthcheck`) ?? 5,
          threshold: nonNegative(check, 'threshold', `${at}.healthcheck`) ?? 6,
        }
      : null,
  };
}

// Small typed readers. Each names the field it refuses, as `echo.json: apply.start.delay_ms ...`.

function invalid(field: string, message: string): ProvisionerError {
  return new ProvisionerError(`${ECHO_FILE_NAME}: ${field === '' ? 'the file' : field} ${message}`);
}

function fail(field: string, message: string): never {
  throw invalid(field, message);
}

function path(at: string, key: string): string {
  return at === '' ? key : `${at}.${key}`;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}

function object(value: unknown, at: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid(at, 'must be an object');
  return value as Record<string, unknown>;
}

function required(value: unknown, at: string): Record<string, unknown> {
  return object(value, at) ?? fail(at, 'must be an object');
}

function known(value: Record<string, unknown>, at: string, keys: readonly string[]): void {
  const unknown = Object.keys(value).find((key) => !keys.includes(key));
  if (unknown !== undefined) throw invalid(path(at, unknown), `is not a known field (known fields: ${keys.join(', ')})`);
}

function list(value: Record<string, unknown>, key: string, at: string): unknown[] {
  const item = value[key];
  if (item === undefined || item === null) return [];
  if (!Array.isArray(item)) throw invalid(path(at, key), 'must be an array');
  return item;
}

function text(value: Record<string, unknown>, key: string, at: string): string | undefined {
  const item = value[key];
  if (item === undefined || item === null) return undefined;
  if (typeof item !== 'string') throw invalid(path(at, key), 'must be a string');
  return item;
}

function name(value: Record<string, unknown>, at: string): string {
  const found = text(value, 'name', at);
  if (!found) throw invalid(path(at, 'name'), 'is required');
  return found;
}

function flag(value: Record<string, unknown>, key: string, at: string): boolean | undefined {
  const item = value[key];
  if (item === undefined || item === null) return undefined;
  if (typeof item !== 'boolean') throw invalid(path(at, key), 'must be true or false');
  return item;
}

function integer(value: Record<string, unknown>, key: string, at: string): number | undefined {
  const item = value[key];
  if (item === undefined || item === null) return undefined;
  if (typeof item !== 'number' || !Number.isSafeInteger(item)) throw invalid(path(at, key), 'must be an integer');
  return item;
}

function nonNegative(value: Record<string, unknown>, key: string, at: string): number | undefined {
  const item = integer(value, key, at);
  if (item !== undefined && item < 0) throw invalid(path(at, key), 'must not be negative');
  return item;
}

function oneOf<T extends string>(value: Record<string, unknown>, key: string, at: string, values: readonly T[]): T | undefined {
  const item = value[key];
  if (item === undefined || item === null) return undefined;
  if (typeof item !== 'string' || !(values as readonly string[]).includes(item))
    throw invalid(path(at, key), `must be one of ${values.map((v) => (v === '' ? '""' : v)).join(', ')}`);
  return item as T;
}
