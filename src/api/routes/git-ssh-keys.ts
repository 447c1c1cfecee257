import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { GitSshKey } from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { toWireGitSshKey } from '../convert/git-ssh-key.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { UserParam } from './users.js';

/** `GET`/`PUT /users/{user}/gitsshkey`: a user's git SSH public key, and regenerating it. */
export async function gitSshKeyRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  loadPathResources(app);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get('/users/:user/gitsshkey', { schema: { params: UserParam, response: { 200: GitSshKey } } }, async (request) =>
    toWireGitSshKey(await authOf(request).store.users.gitSshKey(pathResource(request, 'user').id)),
  );

  api.put('/users/:user/gitsshkey', { schema: { params: UserParam, response: { 200: GitSshKey } } }, async (request) =>
    toWireGitSshKey(await authOf(request).store.users.regenerateGitSshKey(pathResource(request, 'user').id)),
  );
}
