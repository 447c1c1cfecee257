import { Type, type Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { HttpProblem, isNotFoundOrHidden } from '../../lib/errors.js';
import { isUuid } from '../../lib/random.js';
import { isAction, isResourceType, userObject, type RbacObject } from '../../rbac/index.js';
import type { AuthorizedStore } from '../../store/authorized-store.js';
import { groupRbac, templateRbac, workspaceRbac } from '../../store/rbac-objects.js';
import type { ApiContext } from '../context.js';
import { authOf, requireAuthentication } from '../plugins/authentication.js';

const AuthorizationCheck = Type.Object({
  action: Type.String(),
  object: Type.Object({
    resource_type: Type.String({ minLength: 1 }),
    owner_id: Type.Optional(Type.String()),
    organization_id: Type.Optional(Type.String()),
    resource_id: Type.Optional(Type.String()),
    any_org: Type.Optional(Type.Boolean()),
  }),
});
type AuthorizationCheck = Static<typeof AuthorizationCheck>;

const AuthorizationRequest = Type.Object({ checks: Type.Record(Type.String(), AuthorizationCheck) });

const MAX_RESOURCE_ID_CHECKS = 10;
// Types whose rows /authcheck can load by id; the others are checked from the given fields only.
const LOADABLE_TYPES = new Set(['workspace', 'template', 'user', 'group']);

/** `POST /authcheck`: evaluates named permission checks for the caller. */
export async function authcheckRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  requireAuthentication(app, context);
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post(
    '/authcheck',
    { schema: { body: AuthorizationRequest, response: { 200: Type.Record(Type.String(), Type.Boolean()) } } },
    async (request) => {
      const { store, subject } = authOf(request);
      const { checks } = request.body;
      validateChecks(checks);
      const answers: Record<string, boolean> = {};
      for (const [name, check] of Object.entries(checks)) {
        answers[name] = await evaluate(store, subject.id, check);
      }
      return answers;
    },
  );
}

function validateChecks(checks: Record<string, AuthorizationCheck>): void {
  const withIds = Object.values(checks).filter((check) => check.object.resource_id);
  if (withIds.length > MAX_RESOURCE_ID_CHECKS) {
    throw new HttpProblem(
      400,
      `Endpoint only supports using "resource_id" field ${MAX_RESOURCE_ID_CHECKS} times, found ${withIds.length} usages. Remove ${withIds.length - MAX_RESOURCE_ID_CHECKS} objects with this field set.`,
    );
  }
  for (const check of withIds) {
    const id = check.object.resource_id ?? '';
    if (!isUuid(id)) {
      throw new HttpProblem(400, `Object "${id}" id is not a valid uuid.`, {
        validations: [{ field: 'resource_id', detail: 'must be a UUID' }],
      });
    }
    if (!LOADABLE_TYPES.has(check.object.resource_type)) {
      throw new HttpProblem(400, `Object type "${check.object.resource_type}" does not support "resource_id" field.`, {
        validations: [{ field: 'resource_type', detail: `must be one of ${[...LOADABLE_TYPES].join(', ')}` }],
      });
    }
  }
}

async function evaluate(store: AuthorizedStore, callerId: string, check: AuthorizationCheck): Promise<boolean> {
  const { object } = check;
  if (!isAction(check.action) || !isResourceType(object.resource_type)) return false;
  let target: RbacObject | undefined = {
    type: object.resource_type,
    ...(object.owner_id ? { owner_id: object.owner_id === 'me' ? callerId : object.owner_id } : {}),
    ...(object.organization_id ? { org_id: object.organization_id } : {}),
    ...(object.any_org ? { any_org: true } : {}),
  };
  if (object.resource_id) target = await loadObject(store, object.resource_type, object.resource_id);
  return target !== undefined && store.can(check.action, target);
}

// The real row decides owner and organization; one the caller cannot read answers false.
async function loadObject(store: AuthorizedStore, type: string, id: string): Promise<RbacObject | undefined> {
  try {
    switch (type) {
      case 'user':
        return userObject((await store.users.get(id)).id);
      case 'workspace':
        return workspaceRbac(await store.workspaces.get(id));
      case 'template':
        return templateRbac(await store.templates.get(id));
      case 'group':
        return groupRbac(await store.groups.get(id));
      default:
        return undefined;
    }
  } catch (error) {
    if (isNotFoundOrHidden(error)) return undefined;
    throw error;
  }
}
