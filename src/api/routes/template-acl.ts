import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { updateTemplateAcl } from '../../domain/template-acl.js';
import { NotAuthorizedError, NotFoundError } from '../../lib/errors.js';
import { ACLAvailable, Response, TemplateACL, UpdateTemplateACL } from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { UserPickerQuery } from '../paging.js';
import { toWireAclAvailable, toWireTemplateAcl } from '../convert/template-acl.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';

const TemplateParam = Type.Object({ template: Type.String({ format: 'uuid' }) });

/**
 * Template permissions: the users and groups a template's ACL names, with roles `use` and
 * `admin`. Reading, changing and listing whom one could add all take `update` on the template.
 */
export async function templateAclRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  loadPathResources(app);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get('/templates/:template/acl', { schema: { params: TemplateParam, response: { 200: TemplateACL } } }, async (request) => {
    try {
      return toWireTemplateAcl(await authOf(request).store.templateAcl.entries(pathResource(request, 'template')));
    } catch (error) {
      // As for whom one could add: the ACL is the template admins' to know, and others are answered as for no such route.
      if (error instanceof NotAuthorizedError) throw new NotFoundError('template');
      throw error;
    }
  });

  api.patch(
    '/templates/:template/acl',
    { schema: { params: TemplateParam, body: UpdateTemplateACL, response: { 200: Response } } },
    async (request) => {
      await updateTemplateAcl(authOf(request).store, pathResource(request, 'template'), request.body);
      return { message: 'Successfully updated template ACL list.' };
    },
  );

  api.get(
    '/templates/:template/acl/available',
    { schema: { params: TemplateParam, querystring: UserPickerQuery, response: { 200: ACLAvailable } } },
    async (request) => {
      const { q, limit, offset } = request.query;
      try {
        const page = { search: q ?? '', limit: limit ?? 0, offset: offset ?? 0 };
        return toWireAclAvailable(await authOf(request).store.templateAcl.available(pathResource(request, 'template'), page));
      } catch (error) {
        // Whom one could add is the template admins' to know: others are answered as for no such route, as the reference does.
        if (error instanceof NotAuthorizedError) throw new NotFoundError('template');
        throw error;
      }
    },
  );
}
