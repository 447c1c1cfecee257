import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { createGroup, deleteGroup, listGroups, membersOf, updateGroup, type GroupQuery } from '../../domain/groups.js';
import type { AuthorizedStore } from '../../store/authorized-store.js';
import type { GroupWithOrganization } from '../../store/rows.js';
import { CreateGroupRequest, Group, PatchGroupRequest, Response } from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { toWireGroup } from '../convert/groups.js';
import { loadPathResources, pathResource } from '../path-resources.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';
import { OrgParam } from './organizations.js';

const GroupParam = Type.Object({ group: Type.String({ minLength: 1 }) });
const OrgGroupParams = Type.Object({ organization: Type.String({ minLength: 1 }), groupName: Type.String({ minLength: 1 }) });

const Paging = {
  limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
};
const GroupsQuery = Type.Object({
  organization: Type.Optional(Type.String()),
  has_member: Type.Optional(Type.String()),
  group_ids: Type.Optional(Type.String()),
  ...Paging,
});
const OrgGroupsQuery = Type.Object({ has_member: Type.Optional(Type.String()), group_ids: Type.Optional(Type.String()), ...Paging });

/** Groups with their members, read in a fixed number of queries for the whole list. */
async function wireGroups(store: AuthorizedStore, rows: readonly GroupWithOrganization[]) {
  const members = await membersOf(store, rows);
  return rows.map((row) => toWireGroup(row, members.get(row.id)));
}

async function wireGroup(store: AuthorizedStore, row: GroupWithOrganization) {
  const [group] = await wireGroups(store, [row]);
  if (!group) throw new Error('a group without its answer');
  return group;
}

/** Groups of organizations and their members. */
export async function groupRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  loadPathResources(app);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/organizations/:organization/groups',
    { schema: { params: OrgParam, querystring: OrgGroupsQuery, response: { 200: Type.Array(Group) } } },
    async (request) => {
      const { store, user } = authOf(request);
      const rows = await listGroups(store, request.query as GroupQuery, user, pathResource(request, 'organization').id);
      return wireGroups(store, rows);
    },
  );

  api.post(
    '/organizations/:organization/groups',
    { schema: { params: OrgParam, body: CreateGroupRequest, response: { 201: Group } } },
    async (request, reply) => {
      const { store } = authOf(request);
      const row = await createGroup(store, pathResource(request, 'organization'), request.body, context.store.clock.now());
      return reply.code(201).send(await wireGroup(store, row));
    },
  );

  api.get(
    '/organizations/:organization/groups/:groupName',
    { schema: { params: OrgGroupParams, response: { 200: Group } } },
    async (request) => {
      const { store } = authOf(request);
      const row = await store.groups.getByName(pathResource(request, 'organization').id, request.params.groupName);
      return wireGroup(store, row);
    },
  );

  api.get('/groups', { schema: { querystring: GroupsQuery, response: { 200: Type.Array(Group) } } }, async (request) => {
    const { store, user } = authOf(request);
    return wireGroups(store, await listGroups(store, request.query, user));
  });

  api.get('/groups/:group', { schema: { params: GroupParam, response: { 200: Group } } }, async (request) => {
    const { store } = authOf(request);
    return wireGroup(store, await store.groups.get(request.params.group));
  });

  api.patch('/groups/:group', { schema: { params: GroupParam, body: PatchGroupRequest, response: { 200: Group } } }, async (request) => {
    const { store } = authOf(request);
    const group = await store.groups.get(request.params.group);
    return wireGroup(store, await updateGroup(store, group, request.body));
  });

  api.delete('/groups/:group', { schema: { params: GroupParam, response: { 200: Response } } }, async (request) => {
    const { store } = authOf(request);
    await deleteGroup(store, await store.groups.get(request.params.group));
    return { message: 'Successfully deleted group!' };
  });
}
