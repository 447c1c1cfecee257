import type { FastifyInstance } from 'fastify';
import { GitSshKey } from '../../sdk/wire/index.js';
import type { GitSshKeyRow } from '../../store/queries/git-ssh-keys.js';
import type { ApiContext } from '../context.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { UserParam } from './users.js';

/** A key as users see it: the private half stays with the agents of the user's workspaces. */
function toWireGitSshKey(row: GitSshKeyRow): GitSshKey {
  return { user_id: row.user_id, created_at: row.created_at, updated_at: row.updated_at, public_key: row.public_key };
}

/** `GET`/`PUT /users/{user}/gitsshkey`: a user's git SSH public key, and regenerating it. */
export async function gitSshKeyRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const user = (params: unknown) => (params as { user: string }).user;

  app.get('/users/:user/gitsshkey', { schema: { params: UserParam, response: { 200: GitSshKey } } }, async (request) =>
    toWireGitSshKey(await authOf(request).store.getGitSshKey(user(request.params))),
  );

  app.put('/users/:user/gitsshkey', { schema: { params: UserParam, response: { 200: GitSshKey } } }, async (request) =>
    toWireGitSshKey(await authOf(request).store.regenerateGitSshKey(user(request.params))),
  );
}
