import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { resolveVariables } from '../native/variables.js';
import {
  cancelableDelay,
  ProvisionerError,
  throwIfCanceled,
  type ApplyResult,
  type BuildInput,
  type ParseInput,
  type ParseResult,
  type PlannedResource,
  type PlanResult,
  type Provisioner,
  type Transition,
} from '../provisioner.js';
import { loadEchoFile, type EchoFile, type EchoSection, type EchoStep } from './echo-file.js';

const PARSE_STAGE = 'Parsing template parameters';
const PLAN_STAGE = 'Planning infrastructure';
const APPLY_STAGE: Readonly<Record<Transition, string>> = {
  start: 'Starting workspace',
  stop: 'Stopping workspace',
  delete: 'Destroying workspace',
};

/**
 * The echo provisioner: an `echo.json` (docs/echo-provisioner.md) holds the literal results of
 * parse, plan and apply per transition, with optional logs, delays and failures. Nothing is
 * created anywhere, which is what tests and load tests want.
 */
export function createEchoProvisioner(): Provisioner {
  return {
    name: 'echo',
    parse,
    plan,
    apply,
  };
}

async function parse(input: ParseInput): Promise<ParseResult> {
  const file = await loadEchoFile(input.directory);
  await play(file.parse, input, PARSE_STAGE);
  const variables = resolveVariables(file.parse.variables, input.variableValues);
  return {
    readme: file.parse.readme ?? (await readOptional(join(input.directory, 'README.md'))),
    variables,
    parameters: file.parse.parameters,
    presets: file.parse.presets,
    externalAuth: file.parse.externalAuth,
    resources: withoutTokens(file.parse.resources ?? resourcesOf(file, 'plan', 'start')),
    metadata: {
      ...(file.parse.description === undefined ? {} : { description: file.parse.description }),
      ...(file.parse.icon === undefined ? {} : { icon: file.parse.icon }),
    },
  };
}

async function plan(input: BuildInput): Promise<PlanResult> {
  const file = await loadEchoFile(input.directory);
  await play(stepOf(file.plan, input.transition), input, PLAN_STAGE);
  resolveVariables(file.parse.variables, input.variableValues);
  return { resources: withoutTokens(resourcesOf(file, 'plan', input.transition)) };
}

async function apply(input: BuildInput): Promise<ApplyResult> {
  const file = await loadEchoFile(input.directory);
  const step = stepOf(file.apply, input.transition);
  await play(step, input, APPLY_STAGE[input.transition]);
  resolveVariables(file.parse.variables, input.variableValues);
  const resources = resourcesOf(file, 'apply', input.transition).map((resource) => ({
    ...resource,
    // A token written in echo.json is kept, so a test can connect a fake agent with it; one written
    // as `${parameter.NAME}` is that build parameter's value, so each workspace of one version can
    // have its own known token (`cove scaletest --simulated-agents`).
    agents: resource.agents.map((agent) => ({ ...agent, auth_token: tokenOf(agent.auth_token, input.parameterValues) })),
  }));
  const state = step.state !== undefined ? Buffer.from(step.state, 'utf8') : (input.previousState ?? Buffer.alloc(0));
  return { resources, state };
}

/** An agent's token: as written, a build parameter's value for `${parameter.NAME}`, or a fresh one when empty. */
function tokenOf(written: string, parameters: BuildInput['parameterValues']): string {
  const name = /^\$\{parameter\.([^}]+)\}$/.exec(written)?.[1];
  const token = name === undefined ? written : (parameters.find((p) => p.name === name)?.value ?? '');
  return token === '' ? randomUUID() : token;
}

/** The step for a transition: its own fields over the section's common ones. */
function stepOf(section: EchoSection, transition: Transition): EchoStep {
  return { ...section.all, ...section.byTransition[transition] };
}

/**
 * The resources of a plan or apply. Each falls back on the other, so writing either is enough;
 * common `resources` serve start and stop, while delete leaves nothing unless told otherwise.
 */
function resourcesOf(file: EchoFile, kind: 'plan' | 'apply', transition: Transition): readonly PlannedResource[] {
  const own = (section: EchoSection): readonly PlannedResource[] | undefined =>
    transition === 'delete'
      ? section.byTransition.delete?.resources
      : (section.byTransition[transition]?.resources ?? section.all.resources);
  const [first, second] = kind === 'plan' ? [file.plan, file.apply] : [file.apply, file.plan];
  return own(first) ?? own(second) ?? [];
}

function withoutTokens(resources: readonly PlannedResource[]): PlannedResource[] {
  return resources.map((resource) => ({ ...resource, agents: resource.agents.map((agent) => ({ ...agent, auth_token: '' })) }));
}

/** Emits the step's logs, waits its delays (cancelable), then fails if the step says so. */
async function play(step: EchoStep, input: ParseInput, stage: string): Promise<void> {
  for (const line of step.logs ?? []) {
    if (line.delay_ms > 0) await cancelableDelay(line.delay_ms, input.signal);
    throwIfCanceled(input.signal);
    input.log({ level: line.level, stage: line.stage ?? stage, output: line.output });
  }
  if (step.delay_ms !== undefined && step.delay_ms > 0) await cancelableDelay(step.delay_ms, input.signal);
  if (step.hang) await cancelableDelay(Number.POSITIVE_INFINITY, input.signal);
  throwIfCanceled(input.signal);
  const code = step.error_code ?? undefined;
  const message = step.error || (code === 'REQUIRED_TEMPLATE_VARIABLES' ? 'required template variables need values' : undefined);
  if (message) throw new ProvisionerError(message, code === undefined ? {} : { code });
}

async function readOptional(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}
