import { mkdir, realpath, rm, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, parse, relative, resolve, sep } from 'node:path';
import { ProvisionerError, throwIfCanceled } from '../provisioner.js';
import type { Compute, ComputeContext, JsonValue } from './compute.js';

/** Options of the directory compute. */
export interface DirectoryComputeOptions {
  /**
   * When set, directories may only be created and removed strictly inside this one (symbolic
   * links resolved), so a template cannot reach the rest of the provisioner's file system.
   */
  readonly allowedBase?: string;
}

/** What the state records for a directory resource. */
interface DirectoryState {
  /** The path as of the last start. */
  readonly path: string;
  /** Every path this resource created for the workspace (a renamed workspace moves the path). */
  readonly created: readonly string[];
}

/**
 * The `directory` compute: creates the directory on start, keeps it on stop, and on delete removes
 * the directories it created itself, never one that existed before.
 */
export function createDirectoryCompute(options: DirectoryComputeOptions = {}): Compute {
  return {
    type: 'directory',
    async start({ resource, previous, context }) {
      const path = resource.path ?? '';
      if (!isAbsolute(path))
        throw new ProvisionerError(`resource "${resource.name}": path must be absolute or start with ~/ (got "${path}")`);
      await checkRemovable(path, options.allowedBase);
      throwIfCanceled(context.signal);
      const before = asDirectoryState(previous);
      const created = new Set(before?.created ?? []);
      if (await isDirectory(path, resource.name)) {
        log(context, `Directory ${path} exists`);
      } else {
        // Workspace files are their owner's alone, as a home directory is.
        await mkdir(path, { recursive: true, mode: 0o700 });
        created.add(path);
        log(context, `Created directory ${path}`);
      }
      return stateJson({ path, created: [...created] });
    },
    async stop({ previous }) {
      // Directories are what persists across a stop.
      return previous;
    },
    async delete({ previous, context }) {
      for (const path of asDirectoryState(previous)?.created ?? []) {
        throwIfCanceled(context.signal);
        await checkRemovable(path, options.allowedBase);
        await rm(path, { recursive: true, force: true });
        log(context, `Removed directory ${path}`);
      }
    },
  };
}

function log(context: ComputeContext, output: string): void {
  context.log({ level: 'info', stage: stageOf(context), output });
}

function stageOf(context: ComputeContext): string {
  return context.transition === 'start'
    ? 'Starting workspace'
    : context.transition === 'stop'
      ? 'Stopping workspace'
      : 'Destroying workspace';
}

function stateJson(state: DirectoryState): JsonValue {
  return { path: state.path, created: [...state.created] };
}

function asDirectoryState(value: JsonValue | undefined): DirectoryState | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Readonly<Record<string, JsonValue>>;
  const created = record['created'];
  if (typeof record['path'] !== 'string' || !Array.isArray(created) || !created.every((item) => typeof item === 'string')) return undefined;
  return { path: record['path'], created: created as string[] };
}

async function isDirectory(path: string, name: string): Promise<boolean> {
  try {
    if ((await stat(path)).isDirectory()) return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  throw new ProvisionerError(`resource "${name}": ${path} exists and is not a directory`);
}

/**
 * Refuses paths that no workspace directory should ever be: a file system root, the home
 * directory itself, and, when a base is configured, anything not strictly inside it.
 */
async function checkRemovable(path: string, allowedBase: string | undefined): Promise<void> {
  const real = await realpathOfNearest(resolve(path));
  if (real === parse(real).root || real === (await realpathOfNearest(homedir()))) {
    throw new ProvisionerError(`refusing to manage ${path}: it is a root or home directory`);
  }
  if (allowedBase === undefined) return;
  const base = await realpathOfNearest(resolve(allowedBase));
  const rel = relative(base, real);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new ProvisionerError(`refusing to manage ${path}: it is not inside the allowed directory ${allowedBase}`);
  }
}

/** The real path of `path`, resolving symbolic links in the part that exists. */
async function realpathOfNearest(path: string): Promise<string> {
  const missing: string[] = [];
  for (let current = path; ; current = dirname(current)) {
    try {
      return join(await realpath(current), ...missing.reverse());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(current) === current) throw error;
      missing.push(current.slice(dirname(current).length).replace(/^[\\/]/, ''));
    }
  }
}
