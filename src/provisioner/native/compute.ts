import type { PlannedAgent, ProvisionerLog, Transition, WorkspaceInfo } from '../provisioner.js';
import type { ResourceSpec } from './expand-resources.js';
import type { RESOURCE_TYPES } from './template-schema.js';

/** A compute type of `template.yaml`. */
export type ComputeType = (typeof RESOURCE_TYPES)[number];

/** A value that survives a JSON round trip: what a compute may keep in the build state. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** What every compute call gets besides its resource. */
export interface ComputeContext {
  readonly workspace: WorkspaceInfo;
  readonly transition: Transition;
  /** The URL agents dial back to (`COVE_AGENT_URL`). */
  readonly accessUrl: string;
  /** The extracted template, where hook commands and other files the template names live. */
  readonly templateDirectory: string;
  readonly log: (line: ProvisionerLog) => void;
  /** Aborted when the job is canceled; long operations stop and throw ProvisionerCanceledError. */
  readonly signal: AbortSignal;
}

export interface ComputeStartRequest {
  /** The resource with every `${{ }}` expanded. */
  readonly resource: ResourceSpec;
  /**
   * The resource's agents as the build reports them, each with the fresh `auth_token` its
   * `cove agent` must present (`COVE_AGENT_TOKEN`).
   */
  readonly agents: readonly PlannedAgent[];
  /** What this compute recorded for the same resource in the previous build, if anything. */
  readonly previous: JsonValue | undefined;
  readonly context: ComputeContext;
}

export interface ComputeStopRequest {
  /** The resource as the template now declares it; undefined when the template dropped it. */
  readonly resource: ResourceSpec | undefined;
  /** What the previous start recorded: act on exactly that. */
  readonly previous: JsonValue;
  readonly context: ComputeContext;
}

export interface ComputeDeleteRequest {
  /** What the previous builds recorded: remove exactly that, even if the template changed since. */
  readonly previous: JsonValue;
  readonly context: ComputeContext;
}

/**
 * One compute type of the native provisioner. Each call returns the state to record for the
 * resource (process ids, container ids, paths), which the next build of the workspace receives as
 * `previous`; that is what lets a stop or delete, even after a daemon restart, act on exactly what
 * a start created.
 *
 * The hook compute runs the template's hook scripts with this environment (the `vm-hooks` example
 * relies on it): `COVE_AGENT_URL`, `COVE_AGENT_TOKEN`, `COVE_AGENT_INIT` (a shell script that
 * fetches and runs the agent), `COVE_WORKSPACE_ID`, `COVE_WORKSPACE_NAME`, `COVE_WORKSPACE_OWNER`,
 * `COVE_TRANSITION`, plus the resource's own `env`; `hook-compute.ts` lists the few more it sets
 * (`COVE_HOOK`, `COVE_AGENT_NAME`, `COVE_AGENT_TOKEN_<NAME>`, and `COVE_HOOK_STATE`, which carries
 * what an earlier hook reported with a `COVE_STATE=<json>` stdout line).
 */
export interface Compute {
  readonly type: ComputeType;
  /**
   * Checks, before the apply touches anything, that this compute can do the transition (an agent
   * command is configured, the Docker engine answers); throws ProvisionerError when it cannot.
   */
  preflight?(context: ComputeContext): Promise<void>;
  /** Creates what is missing and starts it; idempotent over what `previous` records. */
  start(request: ComputeStartRequest): Promise<JsonValue>;
  /** Stops what runs, keeping what must persist; returns the state to keep. */
  stop(request: ComputeStopRequest): Promise<JsonValue>;
  /** Removes everything `previous` records. */
  delete(request: ComputeDeleteRequest): Promise<void>;
}

/**
 * Thrown by a compute whose start failed after it had already created something (one agent of two
 * started, a volume made): `partial` is the state of what exists, which the build state keeps so
 * that a later stop or delete still cleans it up. The job fails with `cause`.
 */
export class ComputePartialFailure extends Error {
  readonly partial: JsonValue;
  override readonly cause: unknown;

  constructor(cause: unknown, partial: JsonValue) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'ComputePartialFailure';
    this.cause = cause;
    this.partial = partial;
  }
}
