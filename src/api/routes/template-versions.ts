import { Value } from '@sinclair/typebox/value';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { matchedProvisioners, viewJobs } from '../../domain/provisioner-job-views.js';
import { publishJobEvent } from '../../domain/provisioner-job-protocol.js';
import { isJobDone, jobStatus } from '../../domain/provisioner-job-status.js';
import { evaluateParameters } from '../../domain/dynamic-parameters.js';
import { createDryRun, createTemplateVersion, versionNameProblem, type DryRunInput } from '../../domain/template-versions.js';
import { ConflictError, HttpProblem, NotFoundError } from '../../lib/errors.js';
import { isUuid } from '../../lib/random.js';
import {
  CreateTemplateVersionRequest,
  DynamicParametersRequest,
  DynamicParametersResponse,
  NameValue,
  ProvisionerJob,
  PatchTemplateVersionRequest,
  ProvisionerJobLog,
  Response,
  TemplateVersion,
  TemplateVersionExternalAuth,
  TemplateVersionParameter,
  TemplateVersionPreset,
  TemplateVersionVariable,
  WorkspaceResource,
  type RichParameter,
  type TemplateVariable,
} from '../../sdk/wire/index.js';
import { parseJson } from '../../store/json-column.js';
import type { ProvisionerJobRow } from '../../store/queries/provisioner-jobs.js';
import type { TemplateVersionRow } from '../../store/queries/templates.js';
import type { ApiContext } from '../context.js';
import { toWireJob, toWireJobLog } from '../convert/provisioner-job.js';
import { toWirePlannedResource, toWireTemplateVersion } from '../convert/template-version.js';
import { httpOrWebSocketRoute } from '../http-or-websocket-route.js';
import { streamJobLogs } from '../job-log-stream.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';

const VersionParam = Type.Object({ templateversion: Type.String({ format: 'uuid' }) });
const OrgParam = Type.Object({ organization: Type.String({ minLength: 1 }) });

/** Answers for versions with their jobs: creators, queue positions and, while pending, matching daemons. */
export async function answerVersions(
  context: ApiContext,
  rows: readonly { version: TemplateVersionRow; job: ProvisionerJobRow }[],
  options: { readonly withMatched?: boolean } = {},
): Promise<TemplateVersion[]> {
  const now = context.store.clock.now();
  const views = await viewJobs(
    context.store.db,
    rows.map((row) => row.job),
    now,
  );
  const creatorIds = [...new Set(rows.map((row) => row.version.created_by))];
  const creators = new Map(
    (creatorIds.length === 0
      ? []
      : await context.store.db.selectFrom('users').select(['id', 'username', 'avatar_url']).where('id', 'in', creatorIds).execute()
    ).map((user) => [user.id, user]),
  );
  const answers: TemplateVersion[] = [];
  for (const [index, { version, job }] of rows.entries()) {
    const view = views[index];
    if (!view) continue;
    const creator = creators.get(version.created_by) ?? { id: version.created_by, username: '', avatar_url: '' };
    const matched =
      options.withMatched && jobStatus(job) === 'pending'
        ? await matchedProvisioners(context.store.db, job.organization_id, job.provisioner, view.tags, now)
        : undefined;
    answers.push(toWireTemplateVersion(version, view, creator, matched));
  }
  return answers;
}

/** Template versions: creation, reading, renaming, cancel, logs and what the import found. */
export async function templateVersionRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const versionOf = async (request: FastifyRequest) =>
    authOf(request).store.getTemplateVersion((request.params as { templateversion: string }).templateversion);

  app.post(
    '/organizations/:organization/templateversions',
    { schema: { params: OrgParam, body: CreateTemplateVersionRequest, response: { 201: TemplateVersion } } },
    async (request, reply) => {
      const { store } = authOf(request);
      const organization = await store.getOrganization((request.params as { organization: string }).organization);
      const created = await createTemplateVersion(
        store,
        context.store,
        organization.id,
        request.body as CreateTemplateVersionRequest,
        context.templateExamples,
        context.store.clock.now(),
      );
      const [answer] = await answerVersions(context, [created], { withMatched: true });
      return reply.code(201).send(answer);
    },
  );

  app.get(
    '/templateversions/:templateversion',
    { schema: { params: VersionParam, response: { 200: TemplateVersion } } },
    async (request) => {
      const [answer] = await answerVersions(context, [await versionOf(request)], { withMatched: true });
      return answer;
    },
  );

  app.patch(
    '/templateversions/:templateversion',
    { schema: { params: VersionParam, body: PatchTemplateVersionRequest, response: { 200: TemplateVersion } } },
    async (request) => {
      const { store } = authOf(request);
      const { version } = await versionOf(request);
      const body = request.body as PatchTemplateVersionRequest;
      const name = body.name?.trim() ? body.name.trim() : undefined;
      if (name !== undefined) {
        const problem = versionNameProblem(name);
        if (problem) throw new HttpProblem(400, 'Invalid template version name.', { validations: [{ field: 'name', detail: problem }] });
      }
      try {
        await store.updateTemplateVersion(version, {
          ...(name !== undefined ? { name } : {}),
          ...(body.message !== undefined ? { message: body.message } : {}),
        });
      } catch (error) {
        if (error instanceof ConflictError) {
          throw new HttpProblem(400, 'template version name must be unique for a template', {
            validations: [{ field: 'name', detail: 'Name is already used' }],
          });
        }
        throw error;
      }
      const [answer] = await answerVersions(context, [await versionOf(request)]);
      return answer;
    },
  );

  app.patch(
    '/templateversions/:templateversion/cancel',
    { schema: { params: VersionParam, response: { 200: Response } } },
    async (request) => {
      const { store } = authOf(request);
      const { version, job } = await versionOf(request);
      await store.authorizeTemplate('update', { version });
      if (isJobDone(job)) throw new HttpProblem(400, 'Job has already completed!');
      if (job.canceled_at) throw new HttpProblem(400, 'Job has already been marked as canceled!');
      await store.cancelTemplateVersionJob(version, job);
      await publishJobEvent(context.store, job.id, job.started_at ? 'canceled' : 'done');
      return { message: 'Job has been marked as canceled...' };
    },
  );

  for (const [path, archived] of [
    ['archive', 1],
    ['unarchive', 0],
  ] as const) {
    app.post(`/templateversions/:templateversion/${path}`, { schema: { params: VersionParam } }, async (request) => {
      const { store } = authOf(request);
      const { version } = await versionOf(request);
      await store.authorizeTemplate('update', { version });
      if (!version.template_id) throw new HttpProblem(400, 'Cannot archive template versions not associate with a template.');
      if (version.archived === archived) throw new HttpProblem(400, `Template version already ${path}d`);
      if (archived === 1) {
        const template = await store.getTemplate(version.template_id);
        if (template.active_version_id === version.id) {
          throw new HttpProblem(400, 'The active version of a template cannot be archived.', {
            detail: 'Make another version active first.',
          });
        }
      }
      await store.updateTemplateVersion(version, { archived });
      return { message: `template version "${version.id}" ${path}d` };
    });
  }

  httpOrWebSocketRoute(app, {
    url: '/templateversions/:templateversion/logs',
    schema: {
      params: VersionParam,
      querystring: Type.Object({
        before: Type.Optional(Type.Integer()),
        after: Type.Optional(Type.Integer()),
        follow: Type.Optional(Type.String()),
      }),
      response: { 200: Type.Array(ProvisionerJobLog) },
    },
    handler: async (request) => {
      const { store } = authOf(request);
      const { version, job } = await versionOf(request);
      const { before, after } = request.query as { before?: number; after?: number };
      return (await store.listJobLogs(version, job.id, { before, after })).map(toWireJobLog);
    },
    wsHandler: async (socket: WebSocket, request: FastifyRequest) => {
      const { job } = await versionOf(request);
      await streamJobLogs(socket, context.store, job.id, (request.query as { after?: number }).after);
    },
  });

  const DryRunParams = Type.Object({ templateversion: Type.String({ format: 'uuid' }), jobID: Type.String() });
  const dryRunOf = async (request: FastifyRequest) => {
    const { store } = authOf(request);
    const { version } = await versionOf(request);
    const { jobID } = request.params as { jobID: string };
    if (!isUuid(jobID))
      throw new HttpProblem(400, `Job ID "${jobID}" must be a valid UUID.`, {
        validations: [{ field: 'jobID', detail: 'must be a UUID' }],
      });
    const job = await store.getDryRunJob(version, jobID).catch((error: unknown) => {
      if (error instanceof NotFoundError) throw new HttpProblem(404, `Provisioner job "${jobID}" not found.`);
      throw error;
    });
    return { version, job };
  };
  const answerJob = async (job: ProvisionerJobRow) => {
    const [view] = await viewJobs(context.store.db, [job], context.store.clock.now());
    if (!view) throw new NotFoundError('provisioner job');
    return toWireJob(view);
  };

  app.post(
    '/templateversions/:templateversion/dry-run',
    {
      schema: {
        params: VersionParam,
        body: Type.Object({
          workspace_name: Type.Optional(Type.String()),
          rich_parameter_values: Type.Optional(Type.Array(NameValue)),
          user_variable_values: Type.Optional(Type.Array(NameValue)),
        }),
        response: { 201: ProvisionerJob },
      },
    },
    async (request, reply) => {
      const { version, job } = await versionOf(request);
      const dryRun = await createDryRun(
        authOf(request).store,
        context.store,
        version,
        job,
        request.body as DryRunInput,
        context.store.clock.now(),
      );
      return reply.code(201).send(await answerJob(dryRun));
    },
  );

  app.get(
    '/templateversions/:templateversion/dry-run/:jobID',
    { schema: { params: DryRunParams, response: { 200: ProvisionerJob } } },
    async (request) => answerJob((await dryRunOf(request)).job),
  );

  app.get(
    '/templateversions/:templateversion/dry-run/:jobID/resources',
    { schema: { params: DryRunParams, response: { 200: Type.Array(WorkspaceResource) } } },
    async (request) => {
      const { version, job } = await dryRunOf(request);
      if (!isJobDone(job)) throw new HttpProblem(400, "Job hasn't completed!");
      return (await authOf(request).store.listJobResources(version, job.id)).map(toWirePlannedResource);
    },
  );

  httpOrWebSocketRoute(app, {
    url: '/templateversions/:templateversion/dry-run/:jobID/logs',
    schema: {
      params: DryRunParams,
      querystring: Type.Object({
        before: Type.Optional(Type.Integer()),
        after: Type.Optional(Type.Integer()),
        follow: Type.Optional(Type.String()),
      }),
      response: { 200: Type.Array(ProvisionerJobLog) },
    },
    handler: async (request) => {
      const { version, job } = await dryRunOf(request);
      const { before, after } = request.query as { before?: number; after?: number };
      return (await authOf(request).store.listJobLogs(version, job.id, { before, after })).map(toWireJobLog);
    },
    wsHandler: async (socket: WebSocket, request: FastifyRequest) => {
      const { job } = await dryRunOf(request);
      await streamJobLogs(socket, context.store, job.id, (request.query as { after?: number }).after);
    },
  });

  app.patch(
    '/templateversions/:templateversion/dry-run/:jobID/cancel',
    { schema: { params: DryRunParams, response: { 200: Response } } },
    async (request) => {
      const { job } = await dryRunOf(request);
      // Authorized first; the update itself touches only a job that is still going.
      await authOf(request).store.cancelDryRunJob(job);
      if (isJobDone(job)) throw new HttpProblem(400, 'Job has already completed.');
      if (job.canceled_at) throw new HttpProblem(400, 'Job has already been marked as canceled.');
      await publishJobEvent(context.store, job.id, job.started_at ? 'canceled' : 'done');
      return { message: 'Job has been marked as canceled.' };
    },
  );

  app.get(
    '/templateversions/:templateversion/resources',
    { schema: { params: VersionParam, response: { 200: Type.Array(WorkspaceResource) } } },
    async (request) => {
      const { store } = authOf(request);
      const { version, job } = await versionOf(request);
      if (!isJobDone(job)) throw new HttpProblem(400, "Job hasn't completed!");
      return (await store.listJobResources(version, job.id)).map(toWirePlannedResource);
    },
  );

  app.get(
    '/templateversions/:templateversion/rich-parameters',
    { schema: { params: VersionParam, response: { 200: Type.Array(TemplateVersionParameter) } } },
    async (request) => {
      const { version, job } = await versionOf(request);
      if (!isJobDone(job)) throw new HttpProblem(403, "Job hasn't completed!");
      return parseJson<RichParameter[]>(version.parameters, []).map((parameter) => ({
        ...parameter,
        description_plaintext: parameter.description,
        validation_min: parameter.validation_min ?? undefined,
        validation_max: parameter.validation_max ?? undefined,
      }));
    },
  );

  app.get(
    '/templateversions/:templateversion/variables',
    { schema: { params: VersionParam, response: { 200: Type.Array(TemplateVersionVariable) } } },
    async (request) => {
      const { version, job } = await versionOf(request);
      if (!isJobDone(job)) throw new HttpProblem(403, "Job hasn't completed!");
      return parseJson<TemplateVariable[]>(version.variables, []).map((variable) =>
        variable.sensitive ? { ...variable, value: '*redacted*', default_value: '*redacted*' } : variable,
      );
    },
  );

  app.get(
    '/templateversions/:templateversion/presets',
    { schema: { params: VersionParam, response: { 200: Type.Array(TemplateVersionPreset) } } },
    async (request) => parseJson((await versionOf(request)).version.presets, []),
  );

  app.get(
    '/templateversions/:templateversion/external-auth',
    { schema: { params: VersionParam, response: { 200: Type.Array(TemplateVersionExternalAuth) } } },
    async (request) => {
      const { version } = await versionOf(request);
      const required = parseJson<{ id: string; optional: boolean }[]>(version.external_auth, []);
      // No external auth providers can be configured yet, so any the template names are missing.
      const first = required[0];
      if (first) throw new HttpProblem(404, `The template version references a Git auth provider "${first.id}" that no longer exists.`);
      return [];
    },
  );

  const parametersOf = async (request: FastifyRequest) => {
    const { version, job } = await versionOf(request);
    if (!isJobDone(job)) throw new HttpProblem(400, "Job hasn't completed!");
    return parseJson<RichParameter[]>(version.parameters, []);
  };

  app.post(
    '/templateversions/:templateversion/dynamic-parameters/evaluate',
    { schema: { params: VersionParam, body: DynamicParametersRequest, response: { 200: DynamicParametersResponse } } },
    async (request) => {
      const body = request.body as DynamicParametersRequest;
      return evaluateParameters(body.id, await parametersOf(request), body.inputs);
    },
  );

  // A form's live view: the parameters with defaults on connect, then one answer per message of inputs.
  httpOrWebSocketRoute(app, {
    url: '/templateversions/:templateversion/dynamic-parameters',
    schema: { params: VersionParam },
    handler: async () => {
      throw new HttpProblem(400, 'This endpoint is a WebSocket.', {
        detail: 'Use POST .../dynamic-parameters/evaluate for a single evaluation.',
      });
    },
    wsHandler: async (socket: WebSocket, request: FastifyRequest) => {
      // Listen before awaiting anything, so inputs sent right after connecting are not lost.
      const parameters = parametersOf(request);
      let answering = Promise.resolve();
      socket.on('message', (data) => {
        answering = answering
          .then(async () => {
            let message: unknown;
            try {
              message = JSON.parse(data.toString());
            } catch {
              return socket.close(1003, 'messages must be JSON');
            }
            if (!Value.Check(DynamicParametersRequest, message)) return socket.close(1003, 'messages must be {id, inputs}');
            socket.send(JSON.stringify(evaluateParameters(message.id, await parameters, message.inputs)));
          })
          .catch(() => undefined); // a version whose parameters cannot be read has closed the socket already
      });
      try {
        socket.send(JSON.stringify(evaluateParameters(-1, await parameters, {})));
      } catch (error) {
        socket.close(1011, error instanceof HttpProblem ? error.message : 'could not read the parameters');
      }
    },
  });

  // Removed: dynamic parameters replaced it. Kept so old clients get the answer the spec lists.
  app.get('/templateversions/:templateversion/parameters', { schema: { params: VersionParam } }, async (request, reply) => {
    await versionOf(request);
    return reply.code(200).send();
  });
}
