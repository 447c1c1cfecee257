import { randomUUID } from 'node:crypto';
import { isAbsolute } from 'node:path';
import {
  ProvisionerCanceledError,
  ProvisionerError,
  throwIfCanceled,
  type ApplyResult,
  type BuildInput,
  type NameValue,
  type ParseInput,
  type ParseResult,
  type PlannedResource,
  type Provisioner,
  type ProvisionerLog,
  type RichParameter,
  type TemplateVariable,
  type Transition,
  type WorkspaceInfo,
} from '../provisioner.js';
import {
  ComputePartialFailure,
  type Compute,
  type ComputeContext,
  type ComputeStartRequest,
  type ComputeType,
  type JsonValue,
} from './compute.js';
import { createDirectoryCompute } from './directory-compute.js';
import { createDockerCompute } from './docker-compute.js';
import { expandResources, toPlannedResource, type ResourceSpec } from './expand-resources.js';
import { createHookCompute } from './hook-compute.js';
import { InterpolationError } from './interpolate.js';
import { parameterValueProblem } from '../../sdk/wire/parameter-value.js';
import { createProcessCompute } from './process-compute.js';
import { loadTemplateFile, TEMPLATE_FILE_NAME, type TemplateFile } from './template-file.js';
import { resolveVariables, undeclaredVariableNames } from './variables.js';

/** Options of the native provisioner. */
export interface NativeProvisionerOptions {
  /** Computes by type, replacing the built-in ones (directory, process, docker, hook). */
  readonly computes?: Partial<Record<ComputeType, Compute>>;
  /** Directory resources must lie strictly inside this directory, when set. */
  readonly directoryBase?: string;
  /**
   * The command that starts a workspace agent (the daemon passes `[node, <bin/cove>, 'agent']`).
   * Without it, starting a `process` or `docker` resource fails: there is no agent to run.
   */
  readonly agentCommand?: readonly string[];
}

/** The build state the native provisioner keeps: per resource, what its compute recorded. */
interface NativeState {
  readonly version: 1;
  readonly resources: readonly StateEntry[];
}

interface StateEntry {
  readonly name: string;
  readonly type: ComputeType;
  readonly state: JsonValue;
}

const PARSE_STAGE = 'Parsing template parameters';
const PLAN_STAGE = 'Planning infrastructure';
const APPLY_STAGE: Readonly<Record<Transition, string>> = {
  start: 'Starting workspace',
  stop: 'Stopping workspace',
  delete: 'Destroying workspace',
};

/** Placeholders for the workspace while a version is imported: there is no workspace yet. */
const IMPORT_WORKSPACE: WorkspaceInfo = { id: '', name: '', owner: '', owner_id: '', start_count: 1 };

/**
 * The native provisioner: templates are a `template.yaml` (see the templates design page) and the
 * files it names. Parse and plan have no side effects; apply runs the computes.
 */
export function createNativeProvisioner(options: NativeProvisionerOptions = {}): Provisioner {
  const agentCommand = options.agentCommand === undefined ? {} : { agentCommand: options.agentCommand };
  const computes: Partial<Record<ComputeType, Compute>> = {
    directory: createDirectoryCompute(options.directoryBase === undefined ? {} : { allowedBase: options.directoryBase }),
    process: createProcessCompute(agentCommand),
    docker: createDockerCompute(agentCommand),
    hook: createHookCompute(),
    ...options.computes,
  };
  return {
    name: 'native',
    parse: (input) => parse(input),
    plan: async (input) => {
      const build = await prepareBuild(input, PLAN_STAGE);
      return { resources: plannedFor(input.transition, build.specs) };
    },
    apply: (input) => apply(input, computes),
  };
}

async function parse(input: ParseInput): Promise<ParseResult> {
  log(input, 'info', PARSE_STAGE, `Reading ${TEMPLATE_FILE_NAME}`);
  const file = await loadTemplateFile(input.directory);
  const variables = variablesOf(file, input, PARSE_STAGE);
  const parameters = Object.fromEntries(file.parameters.map((parameter) => [parameter.name, parameter.default_value]));
  const specs = expand(file, variables, parameters, IMPORT_WORKSPACE, 'start');
  log(
    input,
    'info',
    PARSE_STAGE,
    `Found ${file.parameters.length} parameter(s), ${file.variables.length} variable(s) and ${file.resources.length} resource(s)`,
  );
  return {
    readme: file.readme,
    variables,
    parameters: file.parameters,
    presets: file.presets,
    externalAuth: file.externalAuth,
    resources: specs.map(toPlannedResource),
    metadata: {
      ...(file.description === undefined ? {} : { description: file.description }),
      ...(file.icon === undefined ? {} : { icon: file.icon }),
    },
  };
}

interface PreparedBuild {
  readonly file: TemplateFile;
  /** Every resource of the template, expanded for this build. */
  readonly specs: readonly ResourceSpec[];
}

async function prepareBuild(input: BuildInput, stage: string): Promise<PreparedBuild> {
  const file = await loadTemplateFile(input.directory);
  const variables = variablesOf(file, input, stage);
  const parameters = resolveParameters(file.parameters, input.parameterValues, input.importing === true);
  const specs = expand(file, variables, parameters, input.workspace, input.transition);
  for (const [index, spec] of specs.entries()) {
    if (spec.type === 'directory' && !isAbsolute(spec.path ?? '')) {
      throw new ProvisionerError(
        `${TEMPLATE_FILE_NAME}: resources[${index}].path must be an absolute path or start with ~/ (got "${spec.path ?? ''}")`,
      );
    }
  }
  return { file, specs };
}

function variablesOf(file: TemplateFile, input: ParseInput, stage: string): TemplateVariable[] {
  for (const name of undeclaredVariableNames(file.variables, input.variableValues)) {
    log(input, 'warn', stage, `Ignoring a value for variable "${name}": the template declares no such variable`);
  }
  return resolveVariables(file.variables, input.variableValues);
}

/**
 * Each parameter's value for a build: the one given, else its default. Required parameters
 * must be given; values are checked against the parameter's rules (the domain has already checked
 * monotonic changes, which need the previous build).
 */
function resolveParameters(parameters: readonly RichParameter[], values: readonly NameValue[], importing: boolean): Record<string, string> {
  const given = new Map(values.map((entry) => [entry.name, entry.value]));
  const resolved: Record<string, string> = {};
  for (const parameter of parameters) {
    const value = given.get(parameter.name) ?? parameter.default_value;
    if (parameter.required && value === '' && !importing)
      throw new ProvisionerError(`Parameter "${parameter.name}" is required but not provided`);
    const problem = value === '' ? undefined : parameterValueProblem(parameter, value);
    if (problem) throw new ProvisionerError(`Unable to validate parameter "${parameter.name}": ${problem}`);
    resolved[parameter.name] = value;
  }
  return resolved;
}

function expand(
  file: TemplateFile,
  variables: readonly TemplateVariable[],
  parameters: Readonly<Record<string, string>>,
  workspace: WorkspaceInfo,
  transition: Transition,
): ResourceSpec[] {
  try {
    return expandResources(file.resources, {
      parameters,
      variables: Object.fromEntries(variables.map((variable) => [variable.name, variable.value])),
      workspace: {
        id: workspace.id,
        name: workspace.name,
        owner: workspace.owner,
        owner_id: workspace.owner_id,
        transition,
        start_count: String(workspace.start_count),
      },
    });
  } catch (error) {
    if (error instanceof InterpolationError) throw new ProvisionerError(`${TEMPLATE_FILE_NAME}: ${error.message}`);
    throw error;
  }
}

/** What a transition leaves: everything on start, the persistent directories on stop, nothing on delete. */
function plannedFor(transition: Transition, specs: readonly ResourceSpec[]): PlannedResource[] {
  if (transition === 'delete') return [];
  const kept = transition === 'start' ? specs : specs.filter((spec) => spec.type === 'directory');
  return kept.map(toPlannedResource);
}

async function apply(input: BuildInput, computes: Partial<Record<ComputeType, Compute>>): Promise<ApplyResult> {
  const stage = APPLY_STAGE[input.transition];
  const { specs } = await prepareBuild(input, stage);
  const previous = decodeState(input.previousState);
  const touched = input.transition === 'start' ? specs.map((spec) => spec.type) : previous.map((entry) => entry.type);
  for (const type of new Set(touched)) {
    if (!computes[type]) throw new ProvisionerError(`compute type ${type} is not available yet`);
  }
  const context: ComputeContext = {
    workspace: input.workspace,
    transition: input.transition,
    accessUrl: input.accessUrl,
    templateDirectory: input.directory,
    log: input.log,
    signal: input.signal,
  };
  // Before any side effect: a build that cannot finish should not start creating things.
  for (const type of new Set(touched)) await computes[type]?.preflight?.(context);
  const entries = new StateEntries(previous);
  try {
    throwIfCanceled(input.signal);
    switch (input.transition) {
      case 'start':
        return { resources: await startAll(specs, entries, computes, context), state: entries.encode() };
      case 'stop':
        await stopAll(specs, entries, computes, context);
        return { resources: plannedFor('stop', specs), state: entries.encode() };
      case 'delete':
        await deleteAll(entries, computes, context);
        return { resources: [], state: Buffer.alloc(0) };
    }
  } catch (error) {
    throw withState(error, entries.encode());
  }
}

async function startAll(
  specs: readonly ResourceSpec[],
  entries: StateEntries,
  computes: Partial<Record<ComputeType, Compute>>,
  context: ComputeContext,
): Promise<PlannedResource[]> {
  const resources: PlannedResource[] = [];
  for (const spec of specs) {
    throwIfCanceled(context.signal);
    const planned = toPlannedResource(spec);
    // Every agent gets a token of its own, fresh for every build.
    const agents = planned.agents.map((agent) => ({ ...agent, auth_token: randomUUID() }));
    const state = await startOne(
      compute(computes, spec.type),
      { resource: spec, agents, previous: entries.get(spec.name, spec.type), context },
      entries,
    );
    entries.set({ name: spec.name, type: spec.type, state });
    resources.push({ ...planned, agents });
  }
  for (const entry of entries.all()) {
    if (!specs.some((spec) => spec.name === entry.name && spec.type === entry.type)) {
      context.log({
        level: 'warn',
        stage: APPLY_STAGE.start,
        output: `Keeping ${entry.type} resource "${entry.name}" that the template no longer declares; deleting the workspace removes it`,
      });
    }
  }
  return resources;
}

/** Starts one resource; when it fails partway, what it did create goes into the state before the error goes on. */
async function startOne(found: Compute, request: ComputeStartRequest, entries: StateEntries): Promise<JsonValue> {
  try {
    return await found.start(request);
  } catch (error) {
    if (!(error instanceof ComputePartialFailure)) throw error;
    entries.set({ name: request.resource.name, type: request.resource.type, state: error.partial });
    throw error.cause;
  }
}

async function stopAll(
  specs: readonly ResourceSpec[],
  entries: StateEntries,
  computes: Partial<Record<ComputeType, Compute>>,
  context: ComputeContext,
): Promise<void> {
  // Reverse order: what runs in a directory stops before anything happens to the directory.
  for (const entry of [...entries.all()].reverse()) {
    throwIfCanceled(context.signal);
    const resource = specs.find((spec) => spec.name === entry.name && spec.type === entry.type);
    const state = await compute(computes, entry.type).stop({ resource, previous: entry.state, context });
    entries.set({ ...entry, state });
  }
}

async function deleteAll(entries: StateEntries, computes: Partial<Record<ComputeType, Compute>>, context: ComputeContext): Promise<void> {
  for (const entry of [...entries.all()].reverse()) {
    throwIfCanceled(context.signal);
    await compute(computes, entry.type).delete({ previous: entry.state, context });
    entries.remove(entry);
  }
}

function compute(computes: Partial<Record<ComputeType, Compute>>, type: ComputeType): Compute {
  const found = computes[type];
  if (!found) throw new ProvisionerError(`compute type ${type} is not available yet`);
  return found;
}

/** The state as it stands after each compute call, so a failure partway still records what exists. */
class StateEntries {
  private readonly entries: StateEntry[];

  constructor(previous: readonly StateEntry[]) {
    this.entries = [...previous];
  }

  all(): readonly StateEntry[] {
    return [...this.entries];
  }

  get(name: string, type: ComputeType): JsonValue | undefined {
    return this.entries.find((entry) => entry.name === name && entry.type === type)?.state;
  }

  set(entry: StateEntry): void {
    const index = this.entries.findIndex((candidate) => candidate.name === entry.name && candidate.type === entry.type);
    if (index === -1) this.entries.push(entry);
    else this.entries[index] = entry;
  }

  remove(entry: StateEntry): void {
    const index = this.entries.findIndex((candidate) => candidate.name === entry.name && candidate.type === entry.type);
    if (index !== -1) this.entries.splice(index, 1);
  }

  encode(): Buffer {
    if (this.entries.length === 0) return Buffer.alloc(0);
    const state: NativeState = { version: 1, resources: this.entries };
    return Buffer.from(JSON.stringify(state), 'utf8');
  }
}

const COMPUTE_TYPES: ReadonlySet<string> = new Set(['process', 'docker', 'hook', 'directory']);

function decodeState(buffer: Buffer | null): StateEntry[] {
  if (buffer === null || buffer.length === 0) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(buffer.toString('utf8'));
  } catch {
    throw new ProvisionerError('the previous build state is not native provisioner state');
  }
  const state = parsed as Partial<NativeState> | null;
  const resources = state?.resources;
  const valid =
    state?.version === 1 &&
    Array.isArray(resources) &&
    resources.every(
      (entry: Partial<StateEntry> | null) =>
        typeof entry?.name === 'string' && typeof entry.type === 'string' && COMPUTE_TYPES.has(entry.type),
    );
  if (!valid) throw new ProvisionerError('the previous build state is not native provisioner state');
  return resources.map((entry) => ({ name: entry.name, type: entry.type, state: entry.state ?? null }));
}

/** Gives a failure the state as far as the apply got, turning unexpected errors into job errors. */
function withState(error: unknown, state: Buffer): ProvisionerError {
  if (error instanceof ProvisionerCanceledError) return new ProvisionerCanceledError(state);
  if (error instanceof ProvisionerError) {
    return new ProvisionerError(error.message, {
      ...(error.code === undefined ? {} : { code: error.code }),
      issues: error.issues,
      state,
      cause: error,
    });
  }
  return new ProvisionerError(error instanceof Error ? error.message : String(error), { state, cause: error });
}

function log(input: ParseInput, level: ProvisionerLog['level'], stage: string, output: string): void {
  input.log({ level, stage, output });
}
