import { ApiError } from '../sdk/api-error.js';
import type { CoveClient } from '../sdk/client.js';
import type { Workspace } from '../sdk/wire/index.js';
import { CliError } from './cli-error.js';

/** A workspace as the user named it: `name`, `owner/name`, or the workspace's id. */
export interface WorkspaceRef {
  /** `me` when the user gave a bare name. */
  readonly owner: string;
  readonly name: string;
  /** Set when the user gave an id instead of a name. */
  readonly id?: string;
  /** What the user typed, for messages that should echo it back. */
  readonly text: string;
}

// Workspace names are at most 32 characters, so a UUID can never be mistaken for one.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Reads `name`, `owner/name` or an id; anything else is a mistake worth naming. */
export function parseWorkspaceRef(text: string): WorkspaceRef {
  const trimmed = text.trim();
  if (UUID.test(trimmed)) return { owner: 'me', name: trimmed, id: trimmed, text: trimmed };
  const parts = trimmed.split('/');
  const [first = '', second] = parts;
  if (parts.length > 2 || first === '' || second === '') {
    throw new CliError(`"${text}" is not a workspace name.`, { hint: 'Name a workspace as NAME or OWNER/NAME.' });
  }
  return second === undefined ? { owner: 'me', name: first, text: trimmed } : { owner: first, name: second, text: trimmed };
}

/**
 * The workspace a reference names. A missing workspace is a CliError that says whose workspace
 * was looked for, since a bare name only searches the caller's own.
 */
export async function resolveWorkspace(
  client: CoveClient,
  ref: WorkspaceRef | string,
  options: { readonly includeDeleted?: boolean } = {},
): Promise<Workspace> {
  const wanted = typeof ref === 'string' ? parseWorkspaceRef(ref) : ref;
  try {
    if (wanted.id !== undefined) return await client.workspace(wanted.id, options.includeDeleted);
    return await client.workspaceByOwnerAndName(wanted.owner, wanted.name, options.includeDeleted);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 410)) {
      const whose = wanted.id !== undefined ? '' : wanted.owner === 'me' ? ' among your workspaces' : ` owned by ${wanted.owner}`;
      throw new CliError(`No workspace "${wanted.name}"${whose}.`, {
        hint:
          wanted.owner === 'me' && wanted.id === undefined
            ? 'See "cove list"; name another user\'s workspace as OWNER/NAME.'
            : 'See "cove list --all".',
      });
    }
    throw error;
  }
}
