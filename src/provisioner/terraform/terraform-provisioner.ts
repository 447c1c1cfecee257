import { constants } from 'node:fs';
import { access, cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { runCommand } from '../native/hook-compute.js';
import { scrubbedEnvironment } from '../native/process-compute.js';
import { resolveVariables, undeclaredVariableNames, type VariableDeclaration } from '../native/variables.js';
import {
  ProvisionerCanceledError,
  ProvisionerError,
  throwIfCanceled,
  type ApplyResult,
  type BuildInput,
  type LogLevel,
  type ParseInput,
  type ParseResult,
  type PlannedResource,
  type PlanResult,
  type Provisioner,
  type TemplateVariable,
  type Transition,
} from '../provisioner.js';
import { readTerraformVariables } from './terraform-variables.js';

/** Options of the terraform provisioner. */
export interface TerraformProvisionerOptions {
  /** The terraform binary; by default the first `terraform` on PATH. */
  readonly terraformPath?: string;
  /** The environment terraform is looked up in and runs with (minus Cove's secrets); defaults to this process's. */
  readonly env?: NodeJS.ProcessEnv;
  /** How long one terraform command may run. Defaults to 30 minutes. */
  readonly commandTimeoutMs?: number;
}

const PARSE_STAGE = 'Parsing template parameters';
const INIT_STAGE = 'Initializing terraform';
const PLAN_STAGE = 'Planning infrastructure';
const APPLY_STAGE: Readonly<Record<Transition, string>> = {
  start: 'Starting workspace',
  stop: 'Stopping workspace',
  delete: 'Destroying workspace',
};
const STATE_FILE = 'terraform.tfstate';
const PLAN_FILE = 'cove.tfplan';
const DEFAULT_TIMEOUT_MS = 30 * 60_000;
/** Variables Cove sets for every build; a template declares those it wants, and nobody is asked for them. */
const COVE_VARIABLE_PREFIX = 'cove_';

/**
 * The terraform provisioner: a template is a directory of `*.tf` files, and builds run the
 * terraform binary installed on the provisioner host (`terraform init`, `plan`, `apply`), with the
 * previous build's state as `terraform.tfstate` and the new state read back from it. Without a
 * binary every job fails with a message that says so.
 *
 * Template variables and parameter values reach terraform as `TF_VAR_<name>`. Every build also
 * sets `cove_workspace_id`, `cove_workspace_name`, `cove_workspace_owner`,
 * `cove_workspace_owner_id`, `cove_transition`, `cove_start_count` (1 on start, else 0) and
 * `cove_access_url`, for the template to declare as variables when it wants them: a resource with
 * `count = var.cove_start_count` lives while the workspace runs. A stop applies with a start count
 * of 0; a delete runs `apply -destroy`.
 *
 * Resources come from `terraform show -json`, without agents: agents in terraform need a Cove
 * provider (the reference's `coder_agent`), which does not exist; use the native provisioner for
 * workspaces with agents. A template with a remote backend keeps its state there, and Cove's state
 * for it stays empty.
 */
export function createTerraformProvisioner(options: TerraformProvisionerOptions = {}): Provisioner {
  const env = options.env ?? process.env;
  const timeoutMs = options.commandTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    name: 'terraform',
    async parse(input) {
      await findTerraform(options.terraformPath, env);
      return parse(input);
    },
    async plan(input) {
      const terraform = await findTerraform(options.terraformPath, env);
      return withWorkDirectory(input, (work) => plan(new Runner(terraform, work, input, env, timeoutMs)));
    },
    async apply(input) {
      const terraform = await findTerraform(options.terraformPath, env);
      return withWorkDirectory(input, (work) => apply(new Runner(terraform, work, input, env, timeoutMs)));
    },
  };
}

/** The terraform binary to run, or the error that there is none. */
export async function findTerraform(terraformPath: string | undefined, env: NodeJS.ProcessEnv): Promise<string> {
  if (terraformPath !== undefined) {
    if (await isExecutableFile(terraformPath)) return terraformPath;
    throw notInstalled(`${terraformPath} is not an executable file`);
  }
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'terraform');
    if (await isExecutableFile(candidate)) return candidate;
  }
  throw notInstalled('no "terraform" binary on PATH');
}

function notInstalled(detail: string): ProvisionerError {
  return new ProvisionerError(
    `terraform is not installed on this provisioner: ${detail}. Install terraform or use the native provisioner (template.yaml).`,
  );
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function parse(input: ParseInput): Promise<ParseResult> {
  input.log({ level: 'info', stage: PARSE_STAGE, output: "Reading the template's terraform files" });
  const declarations = await readDeclarations(input.directory);
  const variables = variablesOf(declarations, input, PARSE_STAGE);
  input.log({ level: 'info', stage: PARSE_STAGE, output: `Found ${variables.length} variable(s)` });
  return {
    readme: await readFile(join(input.directory, 'README.md'), 'utf8').catch(() => ''),
    variables,
    parameters: [],
    presets: [],
    externalAuth: [],
    // Knowing the resources takes a plan, with providers downloaded; the import does not run one.
    resources: [],
    metadata: {},
  };
}

/** The variables the template's top-level `*.tf` files declare, except the ones Cove sets. */
async function readDeclarations(directory: string): Promise<VariableDeclaration[]> {
  const files = (await readdir(directory, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && entry.name.endsWith('.tf'))
    .map((entry) => entry.name)
    .sort();
  if (files.length === 0) throw new ProvisionerError('the template has no *.tf files');
  const declarations: VariableDeclaration[] = [];
  for (const file of files) declarations.push(...readTerraformVariables(await readFile(join(directory, file), 'utf8')));
  return declarations.filter((declaration) => !declaration.name.startsWith(COVE_VARIABLE_PREFIX));
}

function variablesOf(declarations: readonly VariableDeclaration[], input: ParseInput, stage: string): TemplateVariable[] {
  for (const name of undeclaredVariableNames(declarations, input.variableValues)) {
    input.log({ level: 'warn', stage, output: `Ignoring a value for variable "${name}": the template declares no such variable` });
  }
  return resolveVariables(declarations, input.variableValues);
}

/** Copies the template into a fresh directory for terraform to work in, and removes it afterwards. */
async function withWorkDirectory<T>(input: BuildInput, work: (directory: string) => Promise<T>): Promise<T> {
  const directory = await mkdtemp(join(tmpdir(), 'cove-terraform-'));
  try {
    await cp(input.directory, directory, { recursive: true });
    // Only the workspace's own state counts, never one that came inside the archive.
    await rm(join(directory, STATE_FILE), { force: true });
    await rm(join(directory, `${STATE_FILE}.backup`), { force: true });
    if (input.previousState !== null && input.previousState.length > 0)
      await writeFile(join(directory, STATE_FILE), input.previousState, { mode: 0o600 });
    return await work(directory);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

async function plan(runner: Runner): Promise<PlanResult> {
  await runner.prepare();
  const destroy = runner.input.transition === 'delete' ? ['-destroy'] : [];
  await runner.run(PLAN_STAGE, ['plan', '-input=false', '-no-color', `-out=${PLAN_FILE}`, ...destroy]);
  const shown = await runner.run(PLAN_STAGE, ['show', '-json', '-no-color', PLAN_FILE], { quiet: true });
  return { resources: resourcesOf(parseJson(shown, 'show')?.planned_values?.root_module) };
}

async function apply(runner: Runner): Promise<ApplyResult> {
  const { transition } = runner.input;
  const stage = APPLY_STAGE[transition];
  try {
    await runner.prepare();
    await runner.run(stage, ['apply', '-auto-approve', '-input=false', '-no-color', ...(transition === 'delete' ? ['-destroy'] : [])]);
  } catch (error) {
    const state = await runner.stateAfter();
    if (error instanceof ProvisionerCanceledError) throw new ProvisionerCanceledError(state);
    if (error instanceof ProvisionerError)
      throw new ProvisionerError(error.message, { ...(error.code === undefined ? {} : { code: error.code }), state, cause: error });
    throw error;
  }
  if (transition === 'delete') return { resources: [], state: Buffer.alloc(0) };
  const shown = await runner.run(stage, ['show', '-json', '-no-color'], { quiet: true });
  return { resources: resourcesOf(parseJson(shown, 'show')?.values?.root_module), state: await runner.stateAfter() };
}

/** Runs terraform commands for one build in its work directory. */
class Runner {
  constructor(
    private readonly terraform: string,
    private readonly directory: string,
    readonly input: BuildInput,
    private readonly baseEnv: NodeJS.ProcessEnv,
    private readonly timeoutMs: number,
  ) {}

  /** Checks the variables and runs `terraform init`. */
  async prepare(): Promise<void> {
    variablesOf(await readDeclarations(this.directory), this.input, INIT_STAGE);
    await this.run(INIT_STAGE, ['init', '-input=false', '-no-color']);
  }

  /** Runs one terraform command; its output lines become logs. Returns its stdout. */
  async run(stage: string, args: readonly string[], options: { readonly quiet?: boolean } = {}): Promise<string> {
    throwIfCanceled(this.input.signal);
    const result = await runCommand({
      command: this.terraform,
      args,
      cwd: this.directory,
      env: this.environment(),
      signal: this.input.signal,
      timeoutMs: this.timeoutMs,
      onLine: (stream, line) => {
        if ((options.quiet && stream === 'stdout') || line.trim() === '') return;
        this.log(stream === 'stdout' ? 'info' : 'warn', stage, line);
      },
    });
    const command = `terraform ${args[0] ?? ''}`;
    if (result.error) throw new ProvisionerError(`${command}: ${result.error.message}`, { cause: result.error });
    if (result.timedOut)
      throw new ProvisionerError(`${command} did not finish within ${Math.round(this.timeoutMs / 60_000)} min and was killed`);
    if (result.code !== 0) {
      const how = result.code === null ? `was killed by ${result.signal ?? 'a signal'}` : `failed (exit code ${result.code})`;
      throw new ProvisionerError(`${command} ${how}${result.tail.length > 0 ? `:\n${result.tail.join('\n')}` : ''}`);
    }
    return result.stdout;
  }

  /** The state file as terraform left it; the previous state when there is none (remote backends, early failures). */
  async stateAfter(): Promise<Buffer> {
    return readFile(join(this.directory, STATE_FILE)).catch(() => this.input.previousState ?? Buffer.alloc(0));
  }

  private environment(): Record<string, string> {
    const { input } = this;
    const values: Record<string, string> = {
      cove_workspace_id: input.workspace.id,
      cove_workspace_name: input.workspace.name,
      cove_workspace_owner: input.workspace.owner,
      cove_workspace_owner_id: input.workspace.owner_id,
      cove_transition: input.transition,
      cove_start_count: input.transition === 'start' ? '1' : '0',
      cove_access_url: input.accessUrl,
    };
    for (const entry of [...input.variableValues, ...input.parameterValues]) {
      if (!entry.name.startsWith(COVE_VARIABLE_PREFIX)) values[entry.name] = entry.value;
    }
    return {
      ...scrubbedEnvironment(this.baseEnv),
      TF_IN_AUTOMATION: '1',
      TF_INPUT: '0',
      CHECKPOINT_DISABLE: '1',
      ...Object.fromEntries(Object.entries(values).map(([name, value]) => [`TF_VAR_${name}`, value])),
    };
  }

  private log(level: LogLevel, stage: string, output: string): void {
    this.input.log({ level, stage, output });
  }
}

interface ShowResource {
  readonly mode?: string;
  readonly type?: string;
  readonly name?: string;
}

interface ShowModule {
  readonly resources?: readonly ShowResource[];
  readonly child_modules?: readonly ShowModule[];
}

interface ShowOutput {
  readonly values?: { readonly root_module?: ShowModule };
  readonly planned_values?: { readonly root_module?: ShowModule };
}

function parseJson(text: string, command: string): ShowOutput | undefined {
  try {
    return JSON.parse(text) as ShowOutput;
  } catch {
    throw new ProvisionerError(`terraform ${command} -json printed something that is not JSON`);
  }
}

/** The managed resources of a module tree, as resources without agents. */
export function resourcesOf(module: ShowModule | undefined): PlannedResource[] {
  if (module === undefined) return [];
  const own = (module.resources ?? [])
    .filter((resource) => resource.mode === 'managed')
    .map((resource): PlannedResource => ({
      name: resource.name ?? '',
      type: resource.type ?? '',
      hide: false,
      icon: '',
      daily_cost: 0,
      metadata: [],
      agents: [],
    }));
  return [...own, ...(module.child_modules ?? []).flatMap(resourcesOf)];
}
