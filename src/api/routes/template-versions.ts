import { Value } from '@sinclair/typebox/value';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { viewJobs } from '../../domain/provisioner-job-views.js';
import { publishJobEvent } from '../../domain/provisioner-job-protocol.js';
import { isJobDone } from '../../domain/provisioner-job-status.js';
import { versionExternalAuth } from '../../domain/external-auth/required-providers.js';
import { evaluateParameters } from '../../domain/dynamic-parameters.js';
import { createDryRun, createTemplateVersion, versionNameProblem } from '../../domain/template-versions.js';
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
import type { AuthorizedStore, VersionWithJob } from '../../store/authorized-store.js';
import { parseJson } from '../../store/json-column.js';
import type { ProvisionerJobRow } from '../../store/rows.js';
import type { ApiContext } from '../context.js';
import { toWirePresets } from '../convert/preset.js';
import { toWireVersionParameter } from '../convert/template-version-parameter.js';
import { toWireJob, toWireJobLog } from '../convert/provisioner-job.js';
import { toWirePlannedResource, toWireTemplateVersion } from '../convert/template-version.js';
import { httpOrWebSocketRoute } from '../http-or-websocket-route.js';
import { trackWebSocket } from '../live-connections.js';
import { streamJobLogs } from '../job-log-stream.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { LogIdCursor } from '../paging.js';

const VersionParam = Type.Object({ templateversion: Type.String({ format: 'uuid' }) });
const OrgParam = Type.Object({ organization: Type.String({ minLength: 1 }) });

/** Answers for versions with their jobs: creators, queue positions and matching daemons. */
export async function answerVersions(store: AuthorizedStore, now: Date, rows: readonly VersionWithJob[]): Promise<TemplateVersion[]> {
  if (rows.length === 0) return [];
  const views = await viewJobs(
    store,
    rows.map((row) => row.job),
    now,
  );
  const creators = await store.templateVersions.creators(rows.map((row) => row.version));
  const answers: TemplateVersion[] = [];
  for (const [index, { version }] of rows.entries()) {
    const view = views[index];
    if (!view) continue;
    const creator = creators.get(version.created_by) ?? { id: version.created_by, username: '', avatar_url: '' };
    answers.push(toWireTemplateVersion(version, view, creator));
  }
  return answers;
}

const LogsQuery = Type.Object({
  before: Type.Optional(LogIdCursor),
  after: Type.Optional(LogIdCursor),
  follow: Type.Optional(Type.String()),
});

/** Template versions: creation, reading, renaming, cancel, logs and what the import found. */
export async function templateVersionRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  loadPathResources(app);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const now = () => context.store.clock.now();
  const versionOf = (request: FastifyRequest) => pathResource(request, 'templateVersion');

  api.post(
    '/organizations/:organization/templateversions',
    { schema: { params: OrgParam, body: CreateTemplateVersionRequest, response: { 201: TemplateVersion } } },
    async (request, reply) => {
      const { store } = authOf(request);
      const created = await createTemplateVersion(
        store,
        context.store,
        pathResource(request, 'organization').id,
        request.body,
        context.templateExamples,
        now(),
      );
      const [answer] = await answerVersions(store, now(), [created]);
      if (!answer) throw new NotFoundError('template version');
      return reply.code(201).send(answer);
    },
  );

  api.get(
    '/templateversions/:templateversion',
    { schema: { params: VersionParam, response: { 200: TemplateVersion } } },
    async (request) => {
      const [answer] = await answerVersions(authOf(request).store, now(), [versionOf(request)]);
      return answer;
    },
  );

  api.patch(
    '/templateversions/:templateversion',
    { schema: { params: VersionParam, body: PatchTemplateVersionRequest, response: { 200: TemplateVersion } } },
    async (request) => {
      const { store } = authOf(request);
      const { version } = versionOf(request);
      const { body } = request;
      const name = body.name?.trim() ? body.name.trim() : undefined;
      if (name !== undefined) {
        const problem = versionNameProblem(name);
        if (problem) throw new HttpProblem(400, 'Invalid template version name.', { validations: [{ field: 'name', detail: problem }] });
      }
      try {
        await store.templateVersions.update(version, {
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
      const [answer] = await answerVersions(store, now(), [await store.templateVersions.get(version.id)]);
      return answer;
    },
  );

  api.patch(
    '/templateversions/:templateversion/cancel',
    { schema: { params: VersionParam, response: { 200: Response } } },
    async (request) => {
      const { store } = authOf(request);
      const { version, job } = versionOf(request);
      await store.templates.authorize('update', { version });
      if (isJobDone(job)) throw new HttpProblem(400, 'Job has already completed!');
      if (job.canceled_at) throw new HttpProblem(400, 'Job has already been marked as canceled!');
      const canceled = await store.templateVersions.cancelJob(version, job, context.connectedDaemons.cancellation(now()));
      await publishJobEvent(context.store, job.id, canceled.completed_at ? 'done' : 'canceled');
      return { message: 'Job has been marked as canceled...' };
    },
  );

  for (const [path, archived] of [
    ['archive', 1],
    ['unarchive', 0],
  ] as const) {
    api.post(`/templateversions/:templateversion/${path}`, { schema: { params: VersionParam } }, async (request) => {
      const { store } = authOf(request);
      const { version } = versionOf(request);
      await store.templates.authorize('update', { version });
      if (!version.template_id) throw new HttpProblem(400, 'Cannot archive template versions not associate with a template.');
      if (version.archived === archived) throw new HttpProblem(400, `Template version already ${path}d`);
      if (archived === 1) {
        const template = await store.templates.get(version.template_id);
        if (template.active_version_id === version.id) {
          throw new HttpProblem(400, 'The active version of a template cannot be archived.', {
            detail: 'Make another version active first.',
          });
        }
      }
      await store.templateVersions.update(version, { archived });
      return { message: `template version "${version.id}" ${path}d` };
    });
  }

  httpOrWebSocketRoute(app, {
    url: '/templateversions/:templateversion/logs',
    schema: { params: VersionParam, querystring: LogsQuery, response: { 200: Type.Array(ProvisionerJobLog) } },
    handler: async (request) => {
      const { store } = authOf(request);
      const { version, job } = versionOf(request);
      const { before, after } = request.query;
      return (await store.templateVersions.jobLogs(version, job.id, { before, after })).map(toWireJobLog);
    },
    wsHandler: async (socket, request) => {
      const { version, job } = versionOf(request);
      trackWebSocket(context, request, socket, (auth) => auth.store.templateVersions.get(version.id));
      await streamJobLogs(socket, authOf(request).store, context.store.pubsub, job.id, request.query.after);
    },
  });

  const DryRunParams = Type.Object({ templateversion: Type.String({ format: 'uuid' }), jobID: Type.String() });
  const dryRunOf = async (request: FastifyRequest, jobID: string) => {
    const { store } = authOf(request);
    const { version } = versionOf(request);
    if (!isUuid(jobID))
      throw new HttpProblem(400, `Job ID "${jobID}" must be a valid UUID.`, {
        validations: [{ field: 'jobID', detail: 'must be a UUID' }],
      });
    const job = await store.templateVersions.getDryRunJob(version, jobID).catch((error: unknown) => {
      if (error instanceof NotFoundError) throw new HttpProblem(404, `Provisioner job "${jobID}" not found.`);
      throw error;
    });
    return { version, job };
  };
  const answerJob = async (store: AuthorizedStore, job: ProvisionerJobRow) => {
    const [view] = await viewJobs(store, [job], now());
    if (!view) throw new NotFoundError('provisioner job');
    return toWireJob(view);
  };

  api.post(
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
      const { store } = authOf(request);
      const { version, job } = versionOf(request);
      const dryRun = await createDryRun(store, context.store, version, job, request.body, now());
      return reply.code(201).send(await answerJob(store, dryRun));
    },
  );

  api.get(
    '/templateversions/:templateversion/dry-run/:jobID',
    { schema: { params: DryRunParams, response: { 200: ProvisionerJob } } },
    async (request) => answerJob(authOf(request).store, (await dryRunOf(request, request.params.jobID)).job),
  );

  api.get(
    '/templateversions/:templateversion/dry-run/:jobID/resources',
    { schema: { params: DryRunParams, response: { 200: Type.Array(WorkspaceResource) } } },
    async (request) => {
      const { version, job } = await dryRunOf(request, request.params.jobID);
      if (!isJobDone(job)) throw new HttpProblem(400, "Job hasn't completed!");
      return (await authOf(request).store.templateVersions.jobResources(version, job.id)).map(toWirePlannedResource);
    },
  );

  httpOrWebSocketRoute(app, {
    url: '/templateversions/:templateversion/dry-run/:jobID/logs',
    schema: { params: DryRunParams, querystring: LogsQuery, response: { 200: Type.Array(ProvisionerJobLog) } },
    handler: async (request) => {
      const { version, job } = await dryRunOf(request, request.params.jobID);
      const { before, after } = request.query;
      return (await authOf(request).store.templateVersions.jobLogs(version, job.id, { before, after })).map(toWireJobLog);
    },
    wsHandler: async (socket, request) => {
      const { version, job } = await dryRunOf(request, request.params.jobID);
      trackWebSocket(context, request, socket, (auth) => auth.store.templateVersions.getDryRunJob(version, job.id));
      await streamJobLogs(socket, authOf(request).store, context.store.pubsub, job.id, request.query.after);
    },
  });

  api.patch(
    '/templateversions/:templateversion/dry-run/:jobID/cancel',
    { schema: { params: DryRunParams, response: { 200: Response } } },
    async (request) => {
      const { job } = await dryRunOf(request, request.params.jobID);
      // Authorized first; the update itself touches only a job that is still going.
      const canceled = await authOf(request).store.templateVersions.cancelDryRunJob(job, context.connectedDaemons.cancellation(now()));
      if (isJobDone(job)) throw new HttpProblem(400, 'Job has already completed.');
      if (job.canceled_at) throw new HttpProblem(400, 'Job has already been marked as canceled.');
      await publishJobEvent(context.store, job.id, canceled.completed_at ? 'done' : 'canceled');
      return { message: 'Job has been marked as canceled.' };
    },
  );

  api.get(
    '/templateversions/:templateversion/resources',
    { schema: { params: VersionParam, response: { 200: Type.Array(WorkspaceResource) } } },
    async (request) => {
      const { store } = authOf(request);
      const { version, job } = versionOf(request);
      if (!isJobDone(job)) throw new HttpProblem(400, "Job hasn't completed!");
      return (await store.templateVersions.jobResources(version, job.id)).map(toWirePlannedResource);
    },
  );

  api.get(
    '/templateversions/:templateversion/rich-parameters',
    { schema: { params: VersionParam, response: { 200: Type.Array(TemplateVersionParameter) } } },
    async (request) => {
      const { version, job } = versionOf(request);
      if (!isJobDone(job)) throw new HttpProblem(403, "Job hasn't completed!");
      return parseJson<RichParameter[]>(version.parameters, []).map(toWireVersionParameter);
    },
  );

  api.get(
    '/templateversions/:templateversion/variables',
    { schema: { params: VersionParam, response: { 200: Type.Array(TemplateVersionVariable) } } },
    async (request) => {
      const { version, job } = versionOf(request);
      if (!isJobDone(job)) throw new HttpProblem(403, "Job hasn't completed!");
      return parseJson<TemplateVariable[]>(version.variables, []).map((variable) =>
        variable.sensitive ? { ...variable, value: '*redacted*', default_value: '*redacted*' } : variable,
      );
    },
  );

  api.get(
    '/templateversions/:templateversion/presets',
    { schema: { params: VersionParam, response: { 200: Type.Array(TemplateVersionPreset) } } },
    async (request) => toWirePresets(versionOf(request).version.presets),
  );

  api.get(
    '/templateversions/:templateversion/external-auth',
    { schema: { params: VersionParam, response: { 200: Type.Array(TemplateVersionExternalAuth) } } },
    async (request) =>
      versionExternalAuth(
        authOf(request).store,
        context.externalAuthOAuth,
        { providers: context.values.externalAuthProviders, accessUrl: context.values.accessUrl },
        authOf(request).user.id,
        versionOf(request).version.external_auth,
        () => context.store.clock.now(),
      ),
  );

  const parametersOf = async (request: FastifyRequest) => {
    const { version, job } = versionOf(request);
    if (!isJobDone(job)) throw new HttpProblem(400, "Job hasn't completed!");
    return parseJson<RichParameter[]>(version.parameters, []);
  };

  api.post(
    '/templateversions/:templateversion/dynamic-parameters/evaluate',
    { schema: { params: VersionParam, body: DynamicParametersRequest, response: { 200: DynamicParametersResponse } } },
    async (request) => {
      const { body } = request;
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
    wsHandler: async (socket, request) => {
      // Listen before awaiting anything, so inputs sent right after connecting are not lost.
      const parameters = parametersOf(request);
      trackWebSocket(context, request, socket, (auth) => auth.store.templateVersions.get(versionOf(request).version.id));
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
  // The version is loaded (and so authorized) before this answers.
  api.get('/templateversions/:templateversion/parameters', { schema: { params: VersionParam } }, async (_request, reply) =>
    reply.code(200).send(),
  );
}
