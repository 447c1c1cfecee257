/**
 * The contract every provisioner (native, echo, terraform) fulfils, and the shapes of what it
 * returns. Fields that map one to one onto the API's wire shapes use the wire's snake_case names,
 * so the daemon stores and serves them without renaming.
 */

import type {
  ExternalAuthRequirement,
  RichParameter,
  LogLevel,
  NameValue,
  PlannedAgentMetadata,
  PlannedPreset as Preset,
  ResourceMetadata,
  ShareLevel,
  TemplateVariable,
  WorkspaceTransition as Transition,
} from '../sdk/wire/index.js';

// The shapes the wire already declares are the provisioners' vocabulary too, declared once there.
export type {
  ExternalAuthRequirement,
  LogLevel,
  NameValue,
  ParameterOption,
  PlannedAgentMetadata,
  PlannedPreset as Preset,
  ResourceMetadata,
  RichParameter,
  ShareLevel,
  TemplateVariable,
  WorkspaceTransition as Transition,
} from '../sdk/wire/index.js';

/** One line of provisioner output, stored as a job log entry under `stage`. */
export interface ProvisionerLog {
  readonly level: LogLevel;
  readonly stage: string;
  readonly output: string;
}

/** What the import job hands to `parse`: the extracted archive and the version's variable values. */
export interface ParseInput {
  /** The directory the template archive was extracted into. */
  readonly directory: string;
  readonly variableValues: readonly NameValue[];
  readonly log: (line: ProvisionerLog) => void;
  /** Aborted when the job is canceled; long steps stop and reject with ProvisionerCanceledError. */
  readonly signal: AbortSignal;
}

/** The workspace a build is for, as far as a template may see it. */
export interface WorkspaceInfo {
  readonly id: string;
  readonly name: string;
  readonly owner: string;
  readonly owner_id: string;
  /** 1 for a start, 0 for stop and delete: the count a start-only resource would have. */
  readonly start_count: number;
}

/** What a build or a dry run hands to `plan` and `apply`. */
export interface BuildInput extends ParseInput {
  readonly transition: Transition;
  readonly parameterValues: readonly NameValue[];
  readonly workspace: WorkspaceInfo;
  /** The URL agents dial back to. */
  readonly accessUrl: string;
  /** The state the previous build of the same workspace returned, or null for the first build. */
  readonly previousState: Buffer | null;
  /**
   * A plan made while importing a version: there are no parameter values yet, only defaults, so
   * a required parameter without one is planned empty instead of failing the import.
   */
  readonly importing?: boolean;
}

/** A script the agent runs (on start, on stop, or on a cron schedule). */
export interface PlannedScript {
  readonly display_name: string;
  readonly script: string;
  readonly cron: string;
  readonly run_on_start: boolean;
  readonly run_on_stop: boolean;
  readonly start_blocks_login: boolean;
  /** Seconds; 0 means no limit. */
  readonly timeout: number;
  readonly log_path: string;
}

/** An app health check: `url` is polled every `interval` seconds; `threshold` failures make it unhealthy. */
export interface AppHealthcheck {
  readonly url: string;
  readonly interval: number;
  readonly threshold: number;
}

/** A workspace app an agent serves. */
export interface PlannedApp {
  readonly slug: string;
  readonly display_name: string;
  readonly url: string;
  readonly command: string;
  readonly icon: string;
  readonly external: boolean;
  readonly subdomain: boolean;
  readonly share: ShareLevel;
  readonly hidden: boolean;
  readonly open_in: 'slim-window' | 'tab';
  readonly group: string;
  readonly healthcheck: AppHealthcheck | null;
}

/** An agent a resource runs. */
export interface PlannedAgent {
  readonly name: string;
  readonly directory: string;
  readonly env: Readonly<Record<string, string>>;
  readonly operating_system: string;
  readonly architecture: string;
  readonly connection_timeout_seconds: number;
  readonly troubleshooting_url: string;
  readonly display_apps: readonly string[];
  readonly startup_script_behavior: 'blocking' | 'non-blocking';
  /** Generated afresh per agent on every apply; empty in parse and plan results. */
  readonly auth_token: string;
  /**
   * The cloud instance the agent runs on (an AWS instance id, an Azure vmId, a GCE instance id),
   * with which it may authenticate instead of its token; '' for none.
   */
  readonly instance_id: string;
  readonly scripts: readonly PlannedScript[];
  readonly apps: readonly PlannedApp[];
  /** The metadata items the agent collects and reports (see the agent metadata watch). */
  readonly metadata?: readonly PlannedAgentMetadata[];
}

/** A resource a transition creates or keeps, with its agents. */
export interface PlannedResource {
  readonly name: string;
  readonly type: string;
  readonly hide: boolean;
  readonly icon: string;
  readonly daily_cost: number;
  readonly metadata: readonly ResourceMetadata[];
  readonly agents: readonly PlannedAgent[];
}

/** What parse returns: everything the daemon stores for a template version at import. */
export interface ParseResult {
  readonly readme: string;
  readonly variables: readonly TemplateVariable[];
  readonly parameters: readonly RichParameter[];
  readonly presets: readonly Preset[];
  readonly externalAuth: readonly ExternalAuthRequirement[];
  /** What a start would create, with default parameter values. */
  readonly resources: readonly PlannedResource[];
  readonly metadata: { readonly description?: string; readonly icon?: string };
}

/** What plan returns: the resources the transition would leave, with no side effects. */
export interface PlanResult {
  readonly resources: readonly PlannedResource[];
}

/** What apply returns: the resources the transition left, and the state for the next build. */
export interface ApplyResult {
  readonly resources: readonly PlannedResource[];
  readonly state: Buffer;
}

/** A provisioner: reads a template directory and turns builds into resources. */
export interface Provisioner {
  readonly name: string;
  parse(input: ParseInput): Promise<ParseResult>;
  plan(input: BuildInput): Promise<PlanResult>;
  apply(input: BuildInput): Promise<ApplyResult>;
}

/** The job error codes the spec enumerates. */
export type ProvisionerErrorCode = 'REQUIRED_TEMPLATE_VARIABLES';

/** One problem found in a template file, with the line it is on (1-based; 0 when unknown). */
export interface TemplateIssue {
  readonly file: string;
  readonly line: number;
  readonly field: string;
  readonly message: string;
}

/**
 * A failure the job reports to the user as is: its message becomes the job's `error`, its code the
 * job's `error_code`. Anything else a provisioner throws is a bug.
 */
export class ProvisionerError extends Error {
  readonly code: ProvisionerErrorCode | undefined;
  /** The individual problems when the message summarises several (invalid template files). */
  readonly issues: readonly TemplateIssue[];
  /**
   * When an apply fails partway: the state of what it did create, to keep for the next build so
   * that a stop or delete can still clean it up.
   */
  readonly state: Buffer | undefined;

  constructor(
    message: string,
    options: {
      readonly code?: ProvisionerErrorCode;
      readonly issues?: readonly TemplateIssue[];
      readonly state?: Buffer;
      readonly cause?: unknown;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProvisionerError';
    this.code = options.code;
    this.issues = options.issues ?? [];
    this.state = options.state;
  }
}

/** The job was canceled (its AbortSignal fired) while the provisioner was working. */
export class ProvisionerCanceledError extends ProvisionerError {
  constructor(state?: Buffer) {
    super('canceled', state === undefined ? {} : { state });
    this.name = 'ProvisionerCanceledError';
  }
}

/** Throws ProvisionerCanceledError when the signal has fired; call between steps with side effects. */
export function throwIfCanceled(signal: AbortSignal): void {
  if (signal.aborted) throw new ProvisionerCanceledError();
}

/**
 * Waits `ms` milliseconds, or until the signal fires (then rejects with ProvisionerCanceledError).
 * `ms` of Infinity waits for the signal only.
 */
export function cancelableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new ProvisionerCanceledError());
      return;
    }
    const onAbort = (): void => {
      if (timer !== undefined) clearTimeout(timer);
      reject(new ProvisionerCanceledError());
    };
    const timer = Number.isFinite(ms)
      ? setTimeout(
          () => {
            signal.removeEventListener('abort', onAbort);
            resolve();
          },
          Math.max(0, ms),
        )
      : undefined;
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
