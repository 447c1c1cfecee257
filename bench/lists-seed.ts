// Seeds the rows the list benchmark pages through, straight into the database of a running daemon:
// users (some with site roles, a few dormant or suspended, one in 50 deleted; each a member of the
// default organization), templates (each with an older and an active version whose import jobs
// succeeded) and workspaces (each with one to three builds whose latest job is in one of the
// statuses a real deployment shows, agents on the started ones, one in 50 deleted). Rows are shaped as the domain writes them (src/domain/workspace-builds.ts, templates.ts,
// template-versions.ts, users.ts, provisioner-job-protocol.ts), so the API reads them as its own.
//
// Index i makes user i, template i and workspace i; the same index always makes the same kind of
// row, so growing from 100 to 1,000 to 10,000 adds rows without touching those already there, and
// the benchmark knows how many rows each filter must find.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { PlannedAgent } from '../src/sdk/wire/index.js';
import type { Database, Insertable } from '../src/store/schema.js';
import type { Store } from '../src/store/store.js';
import { templateRow } from '../test/helpers/template-row.js';

/** What the seeded rows hang off: made through the API before seeding. */
export interface SeedAnchors {
  readonly organizationId: string;
  /** The benchmark's signed-in user (the site owner): creator of most templates, owner of a quarter of the workspaces. */
  readonly callerId: string;
  /** An uploaded template archive every seeded job points at. */
  readonly fileId: string;
}

/** How many rows of each kind are there, and how many each list filter must find. */
export interface SeededCounts {
  readonly users: number;
  readonly templates: number;
  readonly workspaces: number;
  /** Workspaces whose owner is the caller (`owner:me`). */
  readonly ownedByCaller: number;
  /** Workspaces whose latest build is a succeeded start (`status:running`). */
  readonly running: number;
}

type Rows<T extends keyof Database> = Insertable<Database[T]>[];

/** The latest build's transition and job outcome, by `i % 20`: 40% running, 30% stopped, the rest in between. */
const LATEST_BUILD: readonly { transition: 'start' | 'stop'; job: JobOutcome }[] = [
  ...Array.from({ length: 8 }, () => ({ transition: 'start' as const, job: 'succeeded' as const })),
  ...Array.from({ length: 6 }, () => ({ transition: 'stop' as const, job: 'succeeded' as const })),
  { transition: 'start', job: 'failed' },
  { transition: 'start', job: 'failed' },
  { transition: 'start', job: 'pending' },
  { transition: 'start', job: 'running' },
  { transition: 'start', job: 'canceled' },
  { transition: 'stop', job: 'running' },
];
type JobOutcome = 'succeeded' | 'failed' | 'pending' | 'running' | 'canceled';

const ownedByCaller = (i: number): boolean => i % 4 === 0;
/** One in 50 users is gone, and so is their workspace: the lists must leave both out. */
const isDeleted = (i: number): boolean => i % 50 === 49;
const latestOf = (i: number): { transition: 'start' | 'stop' | 'delete'; job: JobOutcome } =>
  isDeleted(i) ? { transition: 'delete', job: 'succeeded' } : (LATEST_BUILD[i % LATEST_BUILD.length] as (typeof LATEST_BUILD)[number]);
const isRunning = (i: number): boolean => latestOf(i).transition === 'start' && latestOf(i).job === 'succeeded';
/** Users still listed, but not active. */
const USER_STATUS: Record<number, string> = { 47: 'dormant', 48: 'suspended' };
const SITE_ROLES: Record<number, string[]> = { 0: ['template-admin'], 1: ['auditor'], 2: ['user-admin'] };
const ORG_ROLES: Record<number, string[]> = { 3: ['organization-admin'], 4: ['organization-template-admin'] };
const HOUR = 3_600_000;

/** The rows the filters must find among indexes [0, size). */
export function expectedCounts(size: number): SeededCounts {
  let live = 0;
  let owned = 0;
  let running = 0;
  for (let i = 0; i < size; i++) {
    if (isDeleted(i)) continue;
    live++;
    if (ownedByCaller(i)) owned++;
    if (isRunning(i)) running++;
  }
  // The caller is a user too.
  return { users: live + 1, templates: size, workspaces: live, ownedByCaller: owned, running };
}

/** Seeds the benchmark's rows in steps of growing size; each step is one transaction. */
export class ListSeeder {
  #seeded = 0;
  #passwordHash = '';
  readonly #store: Store;
  readonly #anchors: SeedAnchors;
  /**
   * Seed time: jobs in progress were last touched now. The job reaper fails running jobs silent for
   * five minutes; none of the counts the benchmark checks depends on them.
   */
  readonly #now = new Date();
  /** Index i was created at base + i × 10 s: 10,000 rows span about 28 hours, ending 20 hours ago. */
  readonly #base = this.#now.getTime() - 48 * HOUR;
  readonly #uuidFor = uuidMemo();

  constructor(store: Store, anchors: SeedAnchors) {
    this.#store = store;
    this.#anchors = anchors;
  }

  /** Seeds up to `size` rows of each kind and returns what the lists must then count. */
  async growTo(size: number): Promise<SeededCounts> {
    if (size < this.#seeded) throw new Error(`cannot shrink from ${this.#seeded} to ${size}`);
    if (!this.#passwordHash) {
      const caller = await this.#store.db
        .selectFrom('users')
        .select('hashed_password')
        .where('id', '=', this.#anchors.callerId)
        .executeTakeFirstOrThrow();
      // Nobody signs in as a seeded user; they still carry a real hash as password users do.
      this.#passwordHash = caller.hashed_password;
      // The site owner came first, as in a real deployment: it made templates before the seeded rows.
      const first = new Date(this.#base - 24 * HOUR).toISOString();
      await this.#store.db
        .updateTable('users')
        .set({ created_at: first, updated_at: first })
        .where('id', '=', this.#anchors.callerId)
        .execute();
    }
    const rows = this.#rows(this.#seeded, size);
    await this.#store.db.transaction().execute(async (trx) => {
      // Parents before children, for the foreign keys.
      await insertChunked(trx, 'users', rows.users);
      await insertChunked(trx, 'organization_members', rows.members);
      await insertChunked(trx, 'provisioner_jobs', rows.jobs);
      // templates.active_version_id has no foreign key; template_versions.template_id has one.
      await insertChunked(trx, 'templates', rows.templates);
      await insertChunked(trx, 'template_versions', rows.versions);
      await insertChunked(trx, 'workspaces', rows.workspaces);
      await insertChunked(trx, 'workspace_builds', rows.builds);
      await insertChunked(trx, 'workspace_resources', rows.resources);
      await insertChunked(trx, 'workspace_agents', rows.agents);
    });
    this.#seeded = size;
    return expectedCounts(size);
  }

  #at(i: number, plusMs = 0): string {
    return new Date(this.#base + i * 10_000 + plusMs).toISOString();
  }

  #rows(from: number, to: number) {
    const { organizationId, callerId } = this.#anchors;
    const uuidFor = this.#uuidFor;
    const users: Rows<'users'> = [];
    const members: Rows<'organization_members'> = [];
    const jobs: Rows<'provisioner_jobs'> = [];
    const versions: Rows<'template_versions'> = [];
    const templates: Rows<'templates'> = [];
    const workspaces: Rows<'workspaces'> = [];
    const builds: Rows<'workspace_builds'> = [];
    const resources: Rows<'workspace_resources'> = [];
    const agents: Rows<'workspace_agents'> = [];
    const userId = (i: number): string => uuidFor('user', i);
    const nowIso = this.#now.toISOString();

    for (let i = from; i < to; i++) {
      const created = this.#at(i);
      users.push({
        id: userId(i),
        email: `bench-user-${i}@example.com`,
        username: `bench-user-${i}`,
        name: `Bench User ${i}`,
        avatar_url: '',
        hashed_password: this.#passwordHash,
        login_type: 'password',
        status: USER_STATUS[i % 50] ?? 'active',
        rbac_roles: JSON.stringify(SITE_ROLES[i % 50] ?? []),
        theme_preference: '',
        quiet_hours_schedule: '',
        hashed_one_time_passcode: null,
        one_time_passcode_expires_at: null,
        deleted: isDeleted(i) ? 1 : 0,
        created_at: created,
        updated_at: created,
        last_seen_at: this.#at(i, 12 * HOUR),
      });
      members.push({
        user_id: userId(i),
        organization_id: organizationId,
        roles: JSON.stringify(ORG_ROLES[i % 50] ?? []),
        created_at: created,
        updated_at: created,
      });
    }

    for (let i = from; i < to; i++) {
      // Template admins make their own templates; the site owner makes the rest.
      const creator = SITE_ROLES[i % 50]?.includes('template-admin') ? userId(i) : callerId;
      const templateId = uuidFor('template', i);
      const versionIds = [uuidFor('version-1', i), uuidFor('version-2', i)];
      versionIds.forEach((versionId, v) => {
        const at = this.#at(i, v * HOUR);
        const job = this.#job(i, `import-${v}`, 'template_version_import', creator, {
          template_version_id: versionId,
          user_variable_values: [],
        });
        jobs.push(job.row(at, 'succeeded'));
        versions.push({
          id: versionId,
          template_id: templateId,
          organization_id: organizationId,
          name: `v${v + 1}`,
          message: v === 0 ? 'first import' : 'bump the image',
          readme: '',
          job_id: job.id,
          created_by: creator,
          created_at: at,
          updated_at: at,
          archived: 0,
          variables: '[]',
          parameters: '[]',
          presets: '[]',
          external_auth: '[]',
          declared_description: '',
          declared_icon: '',
        });
      });
      const created = this.#at(i);
      templates.push(
        templateRow(
          {
            id: templateId,
            organization_id: organizationId,
            name: `bench-template-${i}`,
            active_version_id: versionIds[1] as string,
            created_by: creator,
            created_at: created,
          },
          {
            display_name: `Bench Template ${i}`,
            description: 'A template the list benchmark seeded.',
            icon: '/icon/docker.svg',
            provisioner: 'terraform',
            updated_at: this.#at(i, HOUR),
            default_ttl_ms: i % 2 === 0 ? 8 * HOUR : 0,
            activity_bump_ms: HOUR,
          },
        ),
      );
    }

    for (let i = from; i < to; i++) {
      const workspaceId = uuidFor('workspace', i);
      const ownerId = ownedByCaller(i) ? callerId : userId(i);
      // Two workspaces per even template, none on odd ones: some templates are busy, some idle.
      const template = i - (i % 2);
      const created = this.#at(i);
      const ttl = i % 2 === 0 ? 8 * HOUR : null;
      workspaces.push({
        id: workspaceId,
        organization_id: organizationId,
        owner_id: ownerId,
        template_id: uuidFor('template', template),
        name: `ws-${i}`,
        created_at: created,
        updated_at: created,
        deleted: isDeleted(i) ? 1 : 0,
        // No autostart schedule and deadlines in the future: the autobuild task leaves these alone.
        autostart_schedule: null,
        ttl_ms: ttl,
        last_used_at: this.#at(i, 6 * HOUR),
        dormant_at: null,
        deleting_at: null,
        automatic_updates: 'never',
        favorite: i % 10 === 0 ? 1 : 0,
        latest_build_status: null,
        user_acl: '{}',
        group_acl: '{}',
      });
      // One to three builds: start, stop, start …, the last as LATEST_BUILD says.
      const count = 1 + (i % 3);
      for (let n = 1; n <= count; n++) {
        const latest = n === count;
        const transition = latest ? latestOf(i).transition : n % 2 === 1 ? 'start' : 'stop';
        const outcome: JobOutcome = latest ? latestOf(i).job : 'succeeded';
        const at = this.#at(i, n * HOUR);
        // A fifth of the workspaces still run the template's older version (outdated: true).
        const versionId = uuidFor(latest && i % 5 !== 1 ? 'version-2' : 'version-1', template);
        const buildId = uuidFor(`build-${n}`, i);
        const job = this.#job(i, `build-${n}`, 'workspace_build', ownerId, { workspace_build_id: buildId });
        const jobRow = job.row(at, outcome);
        jobs.push(jobRow);
        const startedOk = transition === 'start' && outcome === 'succeeded';
        builds.push({
          id: buildId,
          workspace_id: workspaceId,
          template_version_id: versionId,
          build_number: n,
          transition,
          initiator_id: ownerId,
          job_id: job.id,
          reason: n === 1 || latest ? 'initiator' : transition === 'stop' ? 'autostop' : 'autostart',
          provisioner_state: outcome === 'succeeded' ? Buffer.from(`{"version":4,"serial":${n}}`) : null,
          deadline: latest && startedOk && ttl ? new Date(this.#now.getTime() + ttl).toISOString() : null,
          max_deadline: null,
          daily_cost: 0,
          rich_parameter_values: '[]',
          template_version_preset_id: null,
          created_at: at,
          updated_at: at,
        });
        if (outcome !== 'succeeded' || transition === 'delete') continue;
        // The volume outlives stops; the container and its agent exist while started.
        const done = jobRow.completed_at ?? at;
        resources.push(resource(uuidFor(`volume-${n}`, i), job.id, transition, 'home', 'docker_volume', done));
        if (transition !== 'start') continue;
        const containerId = uuidFor(`container-${n}`, i);
        resources.push(resource(containerId, job.id, transition, 'dev', 'docker_container', done));
        const connection = latest ? i % 3 : 1;
        agents.push({
          id: uuidFor(`agent-${n}`, i),
          resource_id: containerId,
          name: 'main',
          auth_token_hash: createHash('sha256').update(randomBytes(16)).digest('hex'),
          definition: JSON.stringify(AGENT_DEFINITION),
          // 0: connected now; 1: was connected, then went away; 2: never connected, timed out.
          lifecycle_state: connection === 2 ? 'created' : 'ready',
          created_at: done,
          updated_at: connection === 0 ? nowIso : done,
          first_connected_at: connection === 2 ? null : done,
          last_connected_at: connection === 0 ? nowIso : connection === 1 ? done : null,
          disconnected_at: connection === 1 ? new Date(Date.parse(done) + HOUR).toISOString() : null,
          started_at: connection === 2 ? null : done,
          ready_at: connection === 2 ? null : done,
          last_stats: null,
          last_stats_at: null,
          version: connection === 2 ? '' : 'v2.24.0',
          expanded_directory: connection === 2 ? '' : '/home/coder',
          subsystems: '[]',
          api_version: connection === 2 ? '' : '2.0',
          logs_length: 0,
          logs_overflowed: 0,
          app_health: '{}',
          auth_instance_id: '',
          relay_url: '',
        });
      }
    }
    return { users, members, jobs, versions, templates, workspaces, builds, resources, agents };
  }

  #job(i: number, kind: string, type: string, initiatorId: string, input: object) {
    const id = this.#uuidFor(`job-${kind}`, i);
    const { organizationId, fileId } = this.#anchors;
    const now = this.#now.toISOString();
    return {
      id,
      row: (created: string, outcome: JobOutcome): Insertable<Database['provisioner_jobs']> => {
        const started = new Date(Date.parse(created) + 1_000).toISOString();
        const ended = new Date(Date.parse(created) + 40_000).toISOString();
        const base = {
          id,
          organization_id: organizationId,
          type,
          provisioner: 'terraform',
          storage_method: 'file',
          file_id: fileId,
          initiator_id: initiatorId,
          input: JSON.stringify(input),
          tags: JSON.stringify({ scope: 'organization', owner: '' }),
          created_at: created,
          error_code: '',
        };
        switch (outcome) {
          case 'succeeded':
            return {
              ...base,
              updated_at: ended,
              started_at: started,
              completed_at: ended,
              canceled_at: null,
              error: '',
              worker_id: WORKER,
            };
          case 'failed':
            return {
              ...base,
              updated_at: ended,
              started_at: started,
              completed_at: ended,
              canceled_at: null,
              error: 'terraform apply: exit status 1',
              worker_id: WORKER,
            };
          case 'canceled':
            return {
              ...base,
              updated_at: ended,
              started_at: started,
              completed_at: ended,
              canceled_at: ended,
              error: '',
              worker_id: WORKER,
            };
          // In progress: touched at seed time, as a live daemon's heartbeat would.
          case 'running':
            return { ...base, updated_at: now, started_at: started, completed_at: null, canceled_at: null, error: '', worker_id: WORKER };
          case 'pending':
            return { ...base, updated_at: now, started_at: null, completed_at: null, canceled_at: null, error: '', worker_id: null };
        }
      },
    };
  }
}

/** The provisioner daemon the seeded jobs ran on (none is registered; nothing joins on it). */
const WORKER = '00000000-0000-4000-8000-00000000beef';

const AGENT_DEFINITION: PlannedAgent = {
  name: 'main',
  directory: '/home/coder',
  env: {},
  operating_system: 'linux',
  architecture: 'amd64',
  connection_timeout_seconds: 120,
  troubleshooting_url: '',
  display_apps: ['vscode', 'web_terminal', 'ssh_helper'],
  startup_script_behavior: 'non-blocking',
  auth_token: '',
  instance_id: '',
  scripts: [
    {
      display_name: 'Startup Script',
      script: 'echo ready',
      cron: '',
      run_on_start: true,
      run_on_stop: false,
      start_blocks_login: false,
      timeout: 0,
      log_path: '',
    },
  ],
  apps: [
    {
      slug: 'code-server',
      display_name: 'code-server',
      url: 'http://localhost:13337/?folder=/home/coder',
      command: '',
      icon: '/icon/code.svg',
      external: false,
      subdomain: false,
      share: 'owner',
      hidden: false,
      open_in: 'slim-window',
      group: '',
      healthcheck: null,
    },
  ],
};

function resource(id: string, jobId: string, transition: string, name: string, type: string, at: string) {
  return {
    id,
    job_id: jobId,
    transition,
    name,
    type,
    hide: 0,
    icon: '',
    daily_cost: 0,
    metadata: '[]',
    planned_agents: '[]',
    created_at: at,
  };
}

/** A fresh UUID per (kind, index), remembered, so the same index always names the same row. */
function uuidMemo(): (kind: string, i: number) => string {
  const uuids = new Map<string, string>();
  return (kind, i) => {
    const key = `${kind}:${i}`;
    let id = uuids.get(key);
    if (!id) {
      id = randomUUID();
      uuids.set(key, id);
    }
    return id;
  };
}

/** Multi-row inserts, small enough for SQLite's and PostgreSQL's limits on bound parameters. */
async function insertChunked<T extends keyof Database>(db: Store['db'], table: T, rows: Rows<T>): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0] as object).length;
  const size = Math.max(1, Math.min(1000, Math.floor(30_000 / columns)));
  for (let start = 0; start < rows.length; start += size) {
    // kysely's insert types are per table; the rows are typed by the same table above.
    await db
      .insertInto(table)
      .values(rows.slice(start, start + size) as never)
      .execute();
  }
}
