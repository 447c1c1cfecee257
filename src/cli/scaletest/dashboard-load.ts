import { randomInt } from 'node:crypto';
import type { CoveClient } from '../../sdk/client.js';
import type { User, Workspace, WorkspacesResponse } from '../../sdk/wire/index.js';
import { abortableSleep as sleep } from './abortable-sleep.js';
import { mapLimit } from './map-limit.js';
import type { OperationStats } from './operation-stats.js';

/** What `dashboard` is asked to do. */
export interface DashboardOptions {
  /** How often each simulated person loads a page. */
  readonly intervalMs: number;
  readonly durationMs: number;
  readonly signal?: AbortSignal;
}

/** A simulated person: a user of the run and a session token of their own. */
export interface DashboardUser {
  readonly username: string;
  readonly client: CoveClient;
}

/**
 * A session of each user's own (made by the caller, who may create keys for them), so that every
 * simulated person is authorized, audited and rate-limited as that person is.
 */
export async function dashboardUsers(client: CoveClient, users: readonly User[], count: number): Promise<DashboardUser[]> {
  const chosen = Array.from({ length: Math.min(count, users.length) }, (_, i) => users[i] as User);
  return mapLimit(chosen, 10, async (user) => {
    const { key } = await client.createSessionKey(user.id);
    return { username: user.username, client: client.withToken(key) };
  });
}

/**
 * Each person, every interval (starting at a random point of the first), loads what the dashboard
 * loads for the workspaces page and then a workspace's page: the signed-in user, their appearance,
 * the entitlements, the workspaces list, the templates list, one workspace by owner and name, its
 * builds and its latest build's log. Every request is an operation of its own, named by its route.
 */
export async function runDashboard(users: readonly DashboardUser[], options: DashboardOptions, stats: OperationStats): Promise<number> {
  let pages = 0;
  const stopAt = performance.now() + options.durationMs;
  await Promise.all(
    users.map(async (user) => {
      await sleep(randomInt(Math.max(1, options.intervalMs)), options.signal);
      while (performance.now() < stopAt && !options.signal?.aborted) {
        const due = performance.now() + options.intervalMs;
        await loadPages(user, stats).catch(() => undefined);
        pages++;
        await sleep(Math.max(0, due - performance.now()), options.signal);
      }
    }),
  );
  return pages;
}

async function loadPages(user: DashboardUser, stats: OperationStats): Promise<void> {
  const api = user.client;
  const get = <T>(route: string, path: string, query?: Record<string, string | number>): Promise<T> =>
    stats.time(`GET ${route}`, () => api.request<T>('GET', path, query ? { query } : {}));
  // The frame of every page, at once as the dashboard asks for them.
  const [, , , list] = await Promise.all([
    get('/users/me', '/users/me'),
    get('/users/me/appearance', '/users/me/appearance'),
    get('/entitlements', '/entitlements'),
    get<WorkspacesResponse>('/workspaces', '/workspaces', { q: 'owner:me', limit: 25 }),
    get('/templates', '/templates'),
  ]);
  const first: Workspace | undefined = list.workspaces[0];
  if (!first) return;
  const workspace = await get<Workspace>(
    '/users/{user}/workspace/{name}',
    `/users/${encodeURIComponent(user.username)}/workspace/${encodeURIComponent(first.name)}`,
  );
  await Promise.all([
    get('/workspaces/{id}/builds', `/workspaces/${workspace.id}/builds`),
    get('/workspacebuilds/{id}/logs', `/workspacebuilds/${workspace.latest_build.id}/logs`),
  ]);
}
