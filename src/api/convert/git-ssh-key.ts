import type { GitSshKey } from '../../sdk/wire/index.js';
import type { GitSshKeyRow } from '../../store/rows.js';

/** A key as users see it: the private half stays with the agents of the user's workspaces. */
export function toWireGitSshKey(row: GitSshKeyRow): GitSshKey {
  return { user_id: row.user_id, created_at: row.created_at, updated_at: row.updated_at, public_key: row.public_key };
}
