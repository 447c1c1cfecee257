import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import type {
  AgentWithOwners,
  OrganizationRow,
  ProvisionerJobRow,
  TemplateRow,
  TemplateVersionRow,
  UserRow,
  WorkspaceBuildRow,
  WorkspaceRow,
} from '../store/rows.js';
import { authOf, type RequestAuth } from './plugins/authentication.js';

/** The resources a route's path names, loaded once per request through the caller's authorizing store. */
export interface PathResources {
  user?: UserRow;
  organization?: OrganizationRow;
  workspace?: WorkspaceRow;
  workspaceBuild?: { readonly build: WorkspaceBuildRow; readonly workspace: WorkspaceRow };
  template?: TemplateRow;
  templateVersion?: { readonly version: TemplateVersionRow; readonly job: ProvisionerJobRow };
  workspaceAgent?: AgentWithOwners;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Filled by the path-resource loaders before the handler runs; see {@link loadPathResources}. */
    resources: PathResources;
  }
  interface FastifyContextConfig {
    /** Path parameters this route resolves itself (say why where it is set). */
    readonly loadItself?: readonly (keyof typeof LOADERS)[];
  }
}

type Loader = (auth: RequestAuth, value: string, resources: PathResources) => Promise<void>;

/**
 * How each path parameter becomes a resource. A row the caller may not read throws the store's
 * NotAuthorizedError, which the API answers exactly like a missing one: the canonical 404.
 */
const LOADERS = {
  user: async ({ store, user }, value, resources) => {
    resources.user = await store.users.get(value, user);
  },
  organization: async ({ store }, value, resources) => {
    resources.organization = await store.organizations.get(value);
  },
  workspace: async ({ store }, value, resources) => {
    resources.workspace = await store.workspaces.get(value);
  },
  workspacebuild: async ({ store }, value, resources) => {
    resources.workspaceBuild = await store.workspaceBuilds.get(value);
  },
  template: async ({ store }, value, resources) => {
    resources.template = await store.templates.get(value);
  },
  templateversion: async ({ store }, value, resources) => {
    resources.templateVersion = await store.templateVersions.get(value);
  },
  workspaceagent: async ({ store }, value, resources) => {
    resources.workspaceAgent = await store.workspaceAgents.get(value);
  },
} satisfies Record<string, Loader>;

const PARAM = /:([a-z]+)/g;

/** A path parameter's value; fastify gives every parameter of the path as a string. */
function paramOf(params: unknown, name: string): string {
  const value: unknown = typeof params === 'object' && params !== null ? Reflect.get(params, name) : undefined;
  return typeof value === 'string' ? value : '';
}

/**
 * Loads the resources named in the path of every route registered in this encapsulated context
 * (after authentication), in path order, so a parent that cannot be seen is the 404 before its
 * child is looked at. Handlers read them with {@link pathResource}.
 */
export function loadPathResources(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const itself = new Set<string>(route.config?.loadItself ?? []);
    const names = [...route.url.matchAll(PARAM)]
      .map((match) => match[1] ?? '')
      .filter((name): name is keyof typeof LOADERS => name in LOADERS && !itself.has(name));
    if (names.length === 0) return;
    const load = async (request: FastifyRequest): Promise<void> => {
      const auth = authOf(request);
      for (const name of names) await LOADERS[name](auth, paramOf(request.params, name), request.resources);
    };
    route.preHandler = [load, ...[route.preHandler ?? []].flat()];
  });
}

/** A resource the path named; throws when the route's path does not name it (a programming error). */
export function pathResource<K extends keyof PathResources>(request: FastifyRequest, key: K): NonNullable<PathResources[K]> {
  const value = request.resources[key];
  if (value === undefined) throw new Error(`route ${request.routeOptions.url ?? request.url} does not load ${key}`);
  return value;
}
