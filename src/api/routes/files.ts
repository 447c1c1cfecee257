import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { downloadFile, MAX_FILE_BYTES, UPLOAD_TYPES, uploadFile } from '../../domain/files.js';
import { UploadResponse } from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';

/** Template archives: upload (tar, or zip converted to tar) and download. */
export async function fileRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  // The body is the raw archive. Any type reaches the handler, which names the ones it takes.
  app.addContentTypeParser([...UPLOAD_TYPES], { parseAs: 'buffer', bodyLimit: MAX_FILE_BYTES }, (_request, body, done) => done(null, body));
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_FILE_BYTES }, (_request, body, done) => done(null, body));

  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post(
    '/files',
    { bodyLimit: MAX_FILE_BYTES, schema: { response: { 200: UploadResponse, 201: UploadResponse } } },
    async (request, reply) => {
      const contentType = (request.headers['content-type'] ?? '').trim();
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const { id, created } = await uploadFile(authOf(request).store, contentType, body, context.store.clock.now());
      return reply.code(created ? 201 : 200).send({ hash: id });
    },
  );

  api.get(
    '/files/:fileID',
    {
      schema: {
        params: Type.Object({ fileID: Type.String({ format: 'uuid' }) }),
        querystring: Type.Object({ format: Type.Optional(Type.String()) }),
      },
    },
    async (request, reply) => {
      const file = await downloadFile(authOf(request).store, request.params.fileID, request.query.format);
      return reply.type(file.contentType).send(file.data);
    },
  );
}
