import { createHash, timingSafeEqual } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import type { ConnectedDaemon } from '../../domain/provisioner-job-protocol.js';
import { JOB_STATUS_FILTERS, jobStatus } from '../../domain/provisioner-job-status.js';
import { DAEMON_STALE_MS, viewJobs } from '../../domain/provisioner-job-views.js';
import { normalizeTags, parseTagPairs } from '../../domain/provisioner-tags.js';
import { ConflictError, HttpProblem, NotFoundError } from '../../lib/errors.js';
import { isUuid, newId, randomAlphanumeric } from '../../lib/random.js';
import { orgScoped, authorize } from '../../rbac/index.js';
import {
  CreateProvisionerKeyRequest,
  CreateProvisionerKeyResponse,
  PROVISIONER_KEY_HEADER,
  ProvisionerDaemon,
  ProvisionerJob,
  ProvisionerKey,
} from '../../sdk/wire/index.js';
import { parseJson, parseStringArray } from '../../store/json-column.js';
import { getOrganizationById, getOrganizationByName, getDefaultOrganization } from '../../store/queries/organizations.js';
import { getProvisionerKeyByHash } from '../../store/queries/provisioner-keys.js';
import type { ApiContext } from '../context.js';
import { toWireJob } from '../convert/provisioner-job.js';
import { httpOrWebSocketRoute } from '../http-or-websocket-route.js';
import { authenticateToken, authOf, requireAuthentication } from '../plugins/authentication.js';
import { presentedToken } from '../session-token.js';
import { ProvisionerDaemonSession } from '../provisioner-daemon-session.js';

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

/** The WebSocket daemons connect to. Authenticates before the upgrade, so refusals are plain HTTP answers. */
async function serveRoute(app: FastifyInstance, context: ApiContext): Promise<void> {
  const daemons = new WeakMap<FastifyRequest, ConnectedDaemon>();
  app.addHook('onRequest', async (request) => {
    daemons.set(request, await connectingDaemon(request, context));
  });
  httpOrWebSocketRoute(app, {
    url: '/organizations/:organization/provisionerdaemons/serve',
    schema: { params: OrgParam },
    handler: async () => {
      throw new HttpProblem(400, 'This endpoint speaks the provisioner job protocol over a WebSocket.', {
        detail: 'Run "cove provisioner start" to serve jobs from this machine.',
      });
    },
    wsHandler: async (socket: WebSocket, request: FastifyRequest) => {
      const daemon = daemons.get(request);
      if (!daemon) return socket.close(1008, 'not authenticated');
      await new ProvisionerDaemonSession(socket, context.store, daemon, context.values.accessUrl, request.log).start();
    },
  });
}

async function connectingDaemon(request: FastifyRequest, context: ApiContext): Promise<ConnectedDaemon> {
  const { organization } = request.params as { organization: string };
  const db = context.store.db;
  const org =
    organization === 'default'
      ? await getDefaultOrganization(db)
      : isUuid(organization)
        ? await getOrganizationById(db, organization)
        : await getOrganizationByName(db, organization);
  const query = request.query as Record<string, string | string[] | undefined>;
  const list = (value: string | string[] | undefined) => (value === undefined ? [] : [value].flat());
  const id = String(query['id'] ?? '');
  if (!isUuid(id))
    throw new HttpProblem(400, 'The daemon id must be a UUID.', { validations: [{ field: 'id', detail: 'must be a UUID' }] });
  let requestedTags: Record<string, string>;
  try {
    requestedTags = parseTagPairs(list(query['tag']));
  } catch (error) {
    throw new HttpProblem(400, (error as Error).message, { validations: [{ field: 'tag', detail: 'must be key=value' }] });
  }
  const provisioners = list(query['provisioner']);
  const base = {
    id,
    name: String(query['name'] || `daemon-${id.slice(0, 8)}`),
    provisioners: provisioners.length > 0 ? provisioners : ['native'],
    version: String(query['version'] ?? ''),
  };

  const key = request.headers[PROVISIONER_KEY_HEADER];
  if (typeof key === 'string' && key !== '') {
    if (context.builtinProvisionerKey && safeEqual(key, context.builtinProvisionerKey)) {
      if (!org) throw new NotFoundError('organization');
      return { ...base, organizationId: org.id, tags: normalizeTags('', requestedTags), keyId: null };
    }
    const row = await getProvisionerKeyByHash(db, hashProvisionerKey(key));
    if (!row)
      throw new HttpProblem(401, 'The provisioner key is not valid.', { detail: 'Create one with "cove provisioner keys create".' });
    if (!org || row.organization_id !== org.id) throw new HttpProblem(403, 'The provisioner key belongs to another organization.');
    // A key's tags are fixed when it is made; the daemon cannot widen them.
    return { ...base, organizationId: org.id, tags: normalizeTags('', parseJson(row.tags, {})), keyId: row.id };
  }
  const { subject } = await authenticateToken(context, presentedToken(request), request.ip);
  if (!org || !authorize(subject, 'read', { type: 'organization', id: org.id, org_id: org.id })) throw new NotFoundError('organization');
  // Administrators may serve the whole organization; anyone else only their own jobs.
  const organizationWide = authorize(subject, 'create', orgScoped('provisioner_daemon', org.id));
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
  const orgOf = async (request: FastifyRequest) =>
    authOf(request).store.getOrganization((request.params as { organization: string }).organization);

  app.post(
    '/organizations/:organization/provisionerkeys',
    { schema: { params: OrgParam, body: CreateProvisionerKeyRequest, response: { 201: CreateProvisionerKeyResponse } } },
    async (request, reply) => {
      const { store } = authOf(request);
      const organization = await orgOf(request);
      const body = request.body as CreateProvisionerKeyRequest;
      const name = body.name.trim();
      if (['built-in', 'user-auth', 'psk'].includes(name.toLowerCase()))
        throw new HttpProblem(400, `Name "${name}" is reserved.`, { validations: [{ field: 'name', detail: 'reserved' }] });
      const secret = randomAlphanumeric(43);
      try {
        await store.insertProvisionerKey({
          id: newId(),
          organization_id: organization.id,
          name,
          hashed_secret: hashProvisionerKey(secret),
          tags: JSON.stringify(body.tags ?? {}),
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

  app.get(
    '/organizations/:organization/provisionerkeys',
    { schema: { params: OrgParam, response: { 200: Type.Array(ProvisionerKey) } } },
    async (request) => {
      const organization = await orgOf(request);
      return (await authOf(request).store.listProvisionerKeys(organization.id)).map((row) => ({
        id: row.id,
        created_at: row.created_at,
        organization: row.organization_id,
        name: row.name,
        tags: parseJson<Record<string, string>>(row.tags, {}),
      }));
    },
  );

  app.delete(
    '/organizations/:organization/provisionerkeys/:keyName',
    { schema: { params: Type.Object({ organization: Type.String(), keyName: Type.String({ minLength: 1 }) }) } },
    async (request, reply) => {
      const organization = await orgOf(request);
      await authOf(request).store.deleteProvisionerKey(organization.id, (request.params as { keyName: string }).keyName);
      return reply.code(204).send();
    },
  );

  app.get(
    '/organizations/:organization/provisionerdaemons',
    { schema: { params: OrgParam, response: { 200: Type.Array(ProvisionerDaemon) } } },
    async (request) => {
      const { store } = authOf(request);
      const organization = await orgOf(request);
      const rows = await store.listProvisionerDaemons(organization.id);
      const now = context.store.clock.now().getTime();
      const keyNames = new Map(
        (
          await context.store.db
            .selectFrom('provisioner_keys')
            .select(['id', 'name'])
            .where('organization_id', '=', organization.id)
            .execute()
        ).map((k) => [k.id, k.name]),
      );
      const busy = new Set(
        (
          await context.store.db
            .selectFrom('provisioner_jobs')
            .select('worker_id')
            .where('organization_id', '=', organization.id)
            .where('started_at', 'is not', null)
            .where('completed_at', 'is', null)
            .execute()
        ).map((j) => j.worker_id),
      );
      return rows.map((row) => {
        const online = row.last_seen_at !== null && now - Date.parse(row.last_seen_at) < DAEMON_STALE_MS;
        return {
          id: row.id,
          organization_id: row.organization_id,
          ...(row.key_id ? { key_id: row.key_id, key_name: keyNames.get(row.key_id) ?? '' } : { key_name: 'built-in' }),
          created_at: row.created_at,
          ...(row.last_seen_at ? { last_seen_at: row.last_seen_at } : {}),
          name: row.name,
          version: row.version,
          api_version: row.api_version,
          provisioners: parseStringArray(row.provisioners),
          tags: parseJson<Record<string, string>>(row.tags, {}),
          status: !online ? 'offline' : busy.has(row.id) ? 'busy' : 'idle',
        } as const;
      });
    },
  );

  app.get(
    '/organizations/:organization/provisionerjobs',
    {
      schema: {
        params: OrgParam,
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1 })),
          ids: Type.Optional(Type.String()),
          status: Type.Optional(Type.String()),
          tags: Type.Optional(Type.String()),
        }),
        response: { 200: Type.Array(ProvisionerJob) },
      },
    },
    async (request) => {
      const { store } = authOf(request);
      const organization = await orgOf(request);
      const query = request.query as { limit?: number; ids?: string; status?: string; tags?: string };
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
        if (
          typeof parsed !== 'object' ||
          parsed === null ||
          Array.isArray(parsed) ||
          Object.values(parsed).some((v) => typeof v !== 'string')
        ) {
          throw new HttpProblem(400, 'Invalid query parameters.', {
            validations: [{ field: 'tags', detail: 'must be a JSON object of tag name to value' }],
          });
        }
        tags = parsed as Record<string, string>;
      }
      const rows = (await store.listProvisionerJobs(organization.id, { limit: query.limit ?? 50, ids }))
        .filter((job) => statuses.length === 0 || statuses.includes(jobStatus(job)))
        .filter((job) => !tags || Object.entries(tags).every(([k, v]) => parseJson<Record<string, string>>(job.tags, {})[k] === v))
        .slice(0, query.limit ?? 50);
      return (await viewJobs(context.store.db, rows, context.store.clock.now())).map(toWireJob);
    },
  );

  app.get(
    '/organizations/:organization/provisionerjobs/:job',
    {
      schema: {
        params: Type.Object({ organization: Type.String(), job: Type.String({ format: 'uuid' }) }),
        response: { 200: ProvisionerJob },
      },
    },
    async (request) => {
      const organization = await orgOf(request);
      const job = await authOf(request).store.getProvisionerJob(organization.id, (request.params as { job: string }).job);
      const [view] = await viewJobs(context.store.db, [job], context.store.clock.now());
      if (!view) throw new NotFoundError('provisioner job');
      return toWireJob(view);
    },
  );
}

function splitList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
