import { createHash, timingSafeEqual } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { notifyBuildFinished } from '../../domain/notifications/events/build-outcomes.js';
import { eventNotifier } from '../event-notifier.js';
import type { Authenticated } from '../../domain/authentication.js';
import type { ConnectedDaemon } from '../../domain/provisioner-job-protocol.js';
import { JOB_STATUS_FILTERS } from '../../domain/provisioner-job-status.js';
import { viewJobs } from '../../domain/provisioner-job-views.js';
import { normalizeTags, parseTagPairs } from '../../domain/provisioner-tags.js';
import { ConflictError, HttpProblem, isNotFoundOrHidden, NotFoundError } from '../../lib/errors.js';
import { isUuid, newId, randomAlphanumeric } from '../../lib/random.js';
import { orgScoped, SYSTEM_SUBJECTS } from '../../rbac/index.js';
import {
  CreateProvisionerKeyRequest,
  CreateProvisionerKeyResponse,
  PROVISIONER_KEY_HEADER,
  ProvisionerDaemon,
  type ProvisionerDaemonJob,
  ProvisionerJob,
  ProvisionerKey,
} from '../../sdk/wire/index.js';
import { parseJson } from '../../store/json-column.js';
import type { OrganizationRow, ProvisionerKeyRow } from '../../store/rows.js';
import type { ApiContext } from '../context.js';
import { toWireJob } from '../convert/provisioner-job.js';
import { toWireProvisionerDaemon } from '../convert/provisioner-daemon.js';
import { httpOrWebSocketRoute } from '../http-or-websocket-route.js';
import { trackSessionSocket, type Reauthorize } from '../live-connections.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { authenticateRequest, authOf, requireAuthentication } from '../plugins/authentication.js';
import { ProvisionerDaemonSession } from '../provisioner-daemon-session.js';
import { presentedToken } from '../session-token.js';
import { PageLimit } from '../paging.js';

const OrgParam = Type.Object({ organization: Type.String({ minLength: 1 }) });

/** Hex SHA-256 of a provisioner key's secret: what the database keeps. */
export function hashProvisionerKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Provisioner daemons: the job-protocol socket, their keys, the daemon list and the job list. */
export async function provisionerRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  await app.register(async (serve) => serveRoute(serve, context));
  await app.register(async (admin) => adminRoutes(admin, context));
}

/** What a connecting daemon says about itself. */
const ServeQuery = Type.Object({
  id: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  version: Type.Optional(Type.String()),
  tag: Type.Optional(Type.Array(Type.String())),
  provisioner: Type.Optional(Type.Array(Type.String())),
});
type ServeQuery = Static<typeof ServeQuery>;

/** The WebSocket daemons connect to. Authenticates before the upgrade, so refusals are plain HTTP answers. */
async function serveRoute(app: FastifyInstance, context: ApiContext): Promise<void> {
  const daemons = new WeakMap<FastifyRequest, ConnectedDaemon>();
  // The hook runs after the route's schema checked the query, before the upgrade.
  app
    .withTypeProvider<TypeBoxTypeProvider>()
    .addHook<{ Params: { organization: string }; Querystring: ServeQuery }>('preHandler', async (request) => {
      daemons.set(request, await connectingDaemon(request, request.params.organization, request.query, context));
    });
  httpOrWebSocketRoute(app, {
    url: '/organizations/:organization/provisionerdaemons/serve',
    schema: { params: OrgParam, querystring: ServeQuery },
    handler: async () => {
      throw new HttpProblem(400, 'This endpoint speaks the provisioner job protocol over a WebSocket.', {
        detail: 'Run "cove provisioner start" to serve jobs from this machine.',
      });
    },
    wsHandler: async (socket, request) => {
      const daemon = daemons.get(request);
      if (!daemon) return socket.close(1008, 'not authenticated');
      const session = servingSessions.get(request);
      if (session)
        trackSessionSocket(
          context,
          { token: presentedToken(request), ipAddress: request.ip, opened: session.authenticated },
          socket,
          session.allowed,
        );
      const notifier = eventNotifier(context, request.log);
      // The daemon was authenticated above; the jobs it works on are no user's request, so the
      // protocol runs as the provisioner daemon's own subject, which may only do what the protocol needs.
      const protocol = {
        store: context.store.as(SYSTEM_SUBJECTS.provisionerDaemon),
        pubsub: context.store.pubsub,
        clock: context.store.clock,
        features: context.store.features,
        quietHours: { defaultSchedule: context.values.defaultQuietHoursSchedule, allowUserCustom: context.values.allowCustomQuietHours },
        externalAuthProviderIds: context.values.externalAuthProviders.map((provider) => provider.id),
        // A build that failed, stopped or deleted a workspace on its own is news to its owner.
        jobFinished: (jobId: string) => void notifyBuildFinished(notifier, jobId),
      };
      await new ProvisionerDaemonSession(socket, protocol, daemon, context.values.accessUrl, request.log, {
        connected: context.connectedDaemons,
        observer: context.observer,
      }).start();
    },
  });
}

/** The user's session a daemon connecting without a provisioner key serves with, and what it must still be allowed. */
const servingSessions = new WeakMap<FastifyRequest, { readonly authenticated: Authenticated; readonly allowed: Reauthorize }>();

async function connectingDaemon(
  request: FastifyRequest,
  organization: string,
  query: ServeQuery,
  context: ApiContext,
): Promise<ConnectedDaemon> {
  // Before the daemon is known nobody acts for it: the authenticator subject only resolves the
  // organization and the presented key.
  const authenticator = context.store.as(SYSTEM_SUBJECTS.provisionerAuthenticator);
  const orNone = <T>(error: unknown): T | undefined => {
    if (isNotFoundOrHidden(error)) return undefined;
    throw error;
  };
  const org: OrganizationRow | undefined = await authenticator.organizations.get(organization).catch(orNone<OrganizationRow>);
  const id = query.id ?? '';
  if (!isUuid(id))
    throw new HttpProblem(400, 'The daemon id must be a UUID.', { validations: [{ field: 'id', detail: 'must be a UUID' }] });
  let requestedTags: Record<string, string>;
  try {
    requestedTags = parseTagPairs(query.tag ?? []);
  } catch (error) {
    throw new HttpProblem(400, (error as Error).message, { validations: [{ field: 'tag', detail: 'must be key=value' }] });
  }
  const provisioners = query.provisioner ?? [];
  const base = {
    id,
    name: query.name || `daemon-${id.slice(0, 8)}`,
    provisioners: provisioners.length > 0 ? provisioners : ['native'],
    version: query.version ?? '',
  };

  const key = request.headers[PROVISIONER_KEY_HEADER];
  if (typeof key === 'string' && key !== '') {
    if (context.builtinProvisionerKey && safeEqual(key, context.builtinProvisionerKey)) {
      if (!org) throw new NotFoundError('organization');
      return { ...base, organizationId: org.id, tags: normalizeTags('', requestedTags), keyId: null };
    }
    const row = await authenticator.provisionerKeys.getByHash(hashProvisionerKey(key)).catch(orNone<ProvisionerKeyRow>);
    if (!row)
      throw new HttpProblem(401, 'The provisioner key is not valid.', { detail: 'Create one with "cove provisioner keys create".' });
    if (!org || row.organization_id !== org.id) throw new HttpProblem(403, 'The provisioner key belongs to another organization.');
    // A key's tags are fixed when it is made; the daemon cannot widen them.
    return { ...base, organizationId: org.id, tags: normalizeTags('', parseJson(row.tags, {})), keyId: row.id };
  }
  const authenticated = await authenticateRequest(context, request);
  const { subject } = authenticated;
  const user = context.store.as(subject);
  if (!org || !user.can('read', { type: 'organization', id: org.id, org_id: org.id })) throw new NotFoundError('organization');
  // Administrators may serve the whole organization; anyone else only their own jobs.
  const organizationWide = user.can('create', orgScoped('provisioner_daemon', org.id));
  // Served with a user's session, the daemon serves only while that session may still do so.
  servingSessions.set(request, {
    authenticated,
    allowed: (auth) =>
      auth.store.can('read', { type: 'organization', id: org.id, org_id: org.id }) &&
      (!organizationWide || auth.store.can('create', orgScoped('provisioner_daemon', org.id))),
  });
  const tags = organizationWide ? normalizeTags(subject.id, requestedTags) : normalizeTags(subject.id, requestedTags, { scope: 'user' });
  return { ...base, organizationId: org.id, tags, keyId: null };
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

async function adminRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  loadPathResources(app);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post(
    '/organizations/:organization/provisionerkeys',
    { schema: { params: OrgParam, body: CreateProvisionerKeyRequest, response: { 201: CreateProvisionerKeyResponse } } },
    async (request, reply) => {
      const { store } = authOf(request);
      const organization = pathResource(request, 'organization');
      const name = request.body.name.trim();
      if (['built-in', 'user-auth', 'psk'].includes(name.toLowerCase()))
        throw new HttpProblem(400, `Name "${name}" is reserved.`, { validations: [{ field: 'name', detail: 'reserved' }] });
      const secret = randomAlphanumeric(43);
      try {
        await store.provisionerKeys.insert({
          id: newId(),
          organization_id: organization.id,
          name,
          hashed_secret: hashProvisionerKey(secret),
          tags: JSON.stringify(request.body.tags ?? {}),
          created_at: context.store.nowIso(),
        });
      } catch (error) {
        if (error instanceof ConflictError)
          throw new HttpProblem(409, `A provisioner key named "${name}" already exists.`, {
            validations: [{ field: 'name', detail: 'already in use' }],
          });
        throw error;
      }
      return reply.code(201).send({ key: secret });
    },
  );

  api.get(
    '/organizations/:organization/provisionerkeys',
    { schema: { params: OrgParam, response: { 200: Type.Array(ProvisionerKey) } } },
    async (request) =>
      (await authOf(request).store.provisionerKeys.list(pathResource(request, 'organization').id)).map((row) => ({
        id: row.id,
        created_at: row.created_at,
        organization: row.organization_id,
        name: row.name,
        tags: parseJson<Record<string, string>>(row.tags, {}),
      })),
  );

  api.delete(
    '/organizations/:organization/provisionerkeys/:keyName',
    { schema: { params: Type.Object({ organization: Type.String(), keyName: Type.String({ minLength: 1 }) }) } },
    async (request, reply) => {
      await authOf(request).store.provisionerKeys.delete(pathResource(request, 'organization').id, request.params.keyName);
      return reply.code(204).send();
    },
  );

  api.get(
    '/organizations/:organization/provisionerdaemons',
    { schema: { params: OrgParam, response: { 200: Type.Array(ProvisionerDaemon) } } },
    async (request) => {
      const { store } = authOf(request);
      const organizationId = pathResource(request, 'organization').id;
      const rows = await store.provisionerDaemons.list(organizationId);
      const now = context.store.clock.now();
      // Each daemon's running and last job, from the job table, for those who may read jobs.
      const ids = rows.flatMap((row) => [row.current_job_id, row.previous_job_id]).filter((id): id is string => id !== null);
      const jobs = new Map<string, ProvisionerDaemonJob>();
      if (ids.length > 0 && store.can('read', orgScoped('provisioner_jobs', organizationId))) {
        const found = await store.provisionerJobs.list(organizationId, { ids, limit: ids.length });
        for (const view of await viewJobs(store, found, now)) {
          const { template_name, template_display_name, template_icon } = view.metadata;
          jobs.set(view.row.id, { id: view.row.id, status: view.status, template_name, template_display_name, template_icon });
        }
      }
      return rows.map((row) => toWireProvisionerDaemon(row, now, jobs));
    },
  );

  api.get(
    '/organizations/:organization/provisionerjobs',
    {
      schema: {
        params: OrgParam,
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PageLimit.maximum })),
          ids: Type.Optional(Type.String()),
          status: Type.Optional(Type.String()),
          tags: Type.Optional(Type.String()),
        }),
        response: { 200: Type.Array(ProvisionerJob) },
      },
    },
    async (request) => {
      const { store } = authOf(request);
      const organization = pathResource(request, 'organization');
      const { query } = request;
      const ids = splitList(query.ids);
      const badId = ids.find((id) => !isUuid(id));
      if (badId)
        throw new HttpProblem(400, 'Invalid query parameters.', { validations: [{ field: 'ids', detail: `"${badId}" is not a UUID` }] });
      const statuses = splitList(query.status);
      const badStatus = statuses.find((s) => !(JOB_STATUS_FILTERS as readonly string[]).includes(s));
      if (badStatus) {
        throw new HttpProblem(400, 'Invalid query parameters.', {
          validations: [{ field: 'status', detail: `"${badStatus}" is not one of ${JOB_STATUS_FILTERS.join(', ')}` }],
        });
      }
      let tags: Record<string, string> | undefined;
      if (query.tags) {
        const parsed = parseJson<unknown>(query.tags, undefined);
        if (!isStringRecord(parsed)) {
          throw new HttpProblem(400, 'Invalid query parameters.', {
            validations: [{ field: 'tags', detail: 'must be a JSON object of tag name to value' }],
          });
        }
        tags = parsed;
      }
      const rows = await store.provisionerJobs.list(organization.id, { ids, statuses, tags, limit: query.limit ?? 50 });
      return (await viewJobs(store, rows, context.store.clock.now())).map(toWireJob);
    },
  );

  api.get(
    '/organizations/:organization/provisionerjobs/:job',
    {
      schema: {
        params: Type.Object({ organization: Type.String(), job: Type.String({ format: 'uuid' }) }),
        response: { 200: ProvisionerJob },
      },
    },
    async (request) => {
      const { store } = authOf(request);
      const job = await store.provisionerJobs.get(pathResource(request, 'organization').id, request.params.job);
      const [view] = await viewJobs(store, [job], context.store.clock.now());
      if (!view) throw new NotFoundError('provisioner job');
      return toWireJob(view);
    },
  );
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string');
}

function splitList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
