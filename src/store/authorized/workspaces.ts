import { workspaceChange } from '../audit/workspace-change.js';
import { StoreFamily } from './store-family.js';
import { templateRbac, workspaceRbac } from '../rbac-objects.js';
import { withConflicts } from '../db-errors.js';
import { allowedRows } from '../authz-filter.js';
import { aclAllowedRows } from '../acl-filter.js';
import { listFilter, orgScoped } from '../../rbac/index.js';
import { isUuid } from '../../lib/random.js';
import { NotAuthorizedError, NotFoundError } from '../../lib/errors.js';
import * as jobs from '../queries/provisioner-jobs.js';
import * as templates from '../queries/templates.js';
import * as users from '../queries/users.js';
import * as workspaces from '../queries/workspaces.js';
import * as workspaceLists from '../queries/workspace-lists.js';

/** The store's decision that a subject may create a workspace for an owner from a template; see `WorkspaceStore.grantCreation`. */
export interface WorkspaceCreationGrant {
  readonly ownerId: string;
  readonly templateId: string;
  readonly organizationId: string;
}

/** Workspaces. */
export class WorkspaceStore extends StoreFamily {
  /** A workspace by id; a deleted one only when asked for (it is still authorized as it was). */
  async get(id: string): Promise<workspaces.WorkspaceRow> {
    const row = isUuid(id) ? await workspaces.getWorkspaceById(this.db, id) : undefined;
    if (!row) throw new NotFoundError('workspace');
    this.require('read', workspaceRbac(row));
    return row;
  }

  /**
   * Workspaces by id (deleted or not) with their latest builds, read side by side for a single round
   * trip. Those the subject may read are `found`; the ids of those it may not are `refused`, with
   * nothing of them handed out; an id in neither names no workspace.
   */
  async getWithLatestBuilds(
    ids: readonly string[],
  ): Promise<{ found: Map<string, workspaces.WorkspaceWithLatestBuild>; refused: Set<string> }> {
    const valid = [...new Set(ids.filter(isUuid))];
    const found = new Map<string, workspaces.WorkspaceWithLatestBuild>();
    const refused = new Set<string>();
    for (const row of await workspaces.getWorkspacesWithLatestBuilds(this.db, valid)) {
      if (this.can('read', workspaceRbac(row.workspace))) found.set(row.workspace.id, row);
      else refused.add(row.workspace.id);
    }
    return { found, refused };
  }

  /** A user's workspace by name. */
  async getByOwnerAndName(ownerId: string, name: string, includeDeleted: boolean): Promise<workspaces.WorkspaceRow> {
    const row = await workspaces.getWorkspaceByOwnerAndName(this.db, ownerId, name, includeDeleted);
    if (!row) throw new NotFoundError('workspace');
    this.require('read', workspaceRbac(row));
    return row;
  }

  /**
   * A workspace by its owner (`me`, an id or a username) and name. Only the workspace is authorized,
   * not the owner's user row: a user the workspace is shared with reads it by the owner's name
   * without being able to read the owner, and a caller who may not read it learns nothing of either.
   */
  async getByOwnerRefAndName(owner: string, name: string, includeDeleted: boolean): Promise<workspaces.WorkspaceRow> {
    const ownerId = owner === 'me' ? this.subject.id : isUuid(owner) ? owner : (await users.getUserByUsername(this.db, owner))?.id;
    if (ownerId === undefined) throw new NotFoundError('workspace');
    return this.getByOwnerAndName(ownerId, name, includeDeleted);
  }

  /**
   * One page of the live workspaces the subject may read that pass the filter (the subject's
   * favorites first, then running ones, then by owner and name), and how many pass in all: filtered, counted and paged in SQL.
   */
  async list(query: {
    readonly filter: workspaceLists.WorkspaceListFilter;
    readonly limit: number;
    readonly offset: number;
  }): Promise<{ rows: workspaces.WorkspaceRow[]; count: number }> {
    const allowed = listFilter(this.subject, 'read', 'workspace');
    // Workspaces shared with the subject (or a group of theirs) through their ACLs are listed too.
    const shared = aclAllowedRows(this.store.dialect, this.subject, 'read', 'workspace', {
      org: 'w.organization_id',
      userAcl: 'w.user_acl',
      groupAcl: 'w.group_acl',
    });
    return workspaceLists.listWorkspacePage(this.db, this.store.dialect, {
      allowed: (eb) => eb.or([allowedRows(eb, allowed, { org: 'w.organization_id', owner: 'w.owner_id' }), shared]),
      filter: query.filter,
      page: { now: this.store.clock.now(), limit: query.limit, offset: query.offset, requesterId: this.subject.id },
    });
  }

  /**
   * Decides whether the subject may create a workspace for `ownerId` from `template`: create in the
   * template's organization and use of the template. The grant is what {@link insert}
   * takes, so the decision is made once. Refusals say which action was missing.
   */
  grantCreation(ownerId: string, template: templates.TemplateRow): WorkspaceCreationGrant {
    this.require('create', orgScoped('workspace', template.organization_id, ownerId));
    this.require('use', templateRbac(template));
    const grant: WorkspaceCreationGrant = Object.freeze({ ownerId, templateId: template.id, organizationId: template.organization_id });
    this.grants.add(grant);
    return grant;
  }

  /**
   * Creates a workspace with its first build and that build's job, in one transaction, under a
   * grant this store made for the same owner and template. When the subject may read the new
   * workspace, and so its job's relations (see provisionerJobs.relations), also gives the organization's
   * daemons and queue, the new job in it, read in the same round trip: what the job's place in
   * the queue is counted from.
   */
  async insert(
    grant: WorkspaceCreationGrant,
    row: workspaces.WorkspaceRow,
    first: workspaces.BuildInsert,
  ): Promise<workspaces.OrganizationQueue | undefined> {
    const granted =
      this.grants.has(grant) &&
      grant.ownerId === row.owner_id &&
      grant.templateId === row.template_id &&
      grant.organizationId === row.organization_id;
    if (!granted) throw new NotAuthorizedError('create', 'workspace');
    // The workspace runs as its owner, with their git SSH key: making one for someone acts as them.
    await this.requireOutranks(row.owner_id, row.organization_id);
    const readQueue = this.can('read', workspaceRbac(row));
    const queue = await withConflicts(() =>
      this.audited(
        (trx) => workspaces.insertWorkspace(trx, this.store.dialect, row, first, readQueue),
        () => workspaceChange('create', undefined, row, { build_reason: first.build.reason }),
      ),
    );
    // Perhaps one more user of the template.
    this.store.templateStatistics.invalidate(row.template_id);
    return queue;
  }

  /** Throws NotAuthorizedError unless the subject may act on the workspace. */
  authorize(action: 'update' | 'delete' | 'read', workspace: workspaces.WorkspaceRow): void {
    this.require(action, workspaceRbac(workspace));
  }

  /** Changes a workspace's own settings (name, schedule, TTL, favorite, dormancy, ...); needs `update`. */
  async update(
    workspace: workspaces.WorkspaceRow,
    changes: Partial<Omit<workspaces.WorkspaceRow, 'id'>>,
  ): Promise<workspaces.WorkspaceRow> {
    this.require('update', workspaceRbac(workspace));
    // Its agents are authorized on its row as they found it (dormancy changes which object it is).
    return this.store.changingAgentAuths({ workspaceId: workspace.id }, () =>
      withConflicts(() =>
        this.audited(
          async (trx) => {
            await trx
              .updateTable('workspaces')
              .set({ ...changes, updated_at: this.store.nowIso() })
              .where('id', '=', workspace.id)
              .execute();
            return (await workspaces.getWorkspaceById(trx, workspace.id)) ?? workspace;
          },
          (updated) => workspaceChange('write', workspace, updated, this.#systemReason(changes)),
        ),
      ),
    );
  }

  /** Why the system itself changes a workspace, for its audit entry; nothing for a user's change. */
  #systemReason(changes: Partial<workspaces.WorkspaceRow>): Record<string, string> | undefined {
    if (this.subject.type !== 'system') return undefined;
    return { automatic: 'true', reason: changes.dormant_at ? 'dormancy' : 'lifecycle' };
  }

  /**
   * Records use of a workspace: `last_used_at` moves to now. Needs `update`, as the reference asks
   * for reporting use (it moves the deadline).
   */
  async touch(workspace: workspaces.WorkspaceRow): Promise<void> {
    this.require('update', workspaceRbac(workspace));
    await this.db.updateTable('workspaces').set({ last_used_at: this.store.nowIso() }).where('id', '=', workspace.id).execute();
  }

  /**
   * The template of a readable workspace, with its schedule and sharing rules: reading a workspace
   * shows the settings of its template, whether or not the template's own ACL lets the reader in.
   */
  async template(workspace: workspaces.WorkspaceRow): Promise<templates.TemplateRow> {
    this.require('read', workspaceRbac(workspace));
    const template = await this.db.selectFrom('templates').selectAll().where('id', '=', workspace.template_id).executeTakeFirst();
    if (!template) throw new NotFoundError('template');
    return template;
  }

  /** A version of a readable workspace's template (as {@link template}). */
  async templateVersion(workspace: workspaces.WorkspaceRow, versionId: string): Promise<templates.TemplateVersionRow> {
    this.require('read', workspaceRbac(workspace));
    const version = isUuid(versionId)
      ? await this.db.selectFrom('template_versions').selectAll().where('id', '=', versionId).executeTakeFirst()
      : undefined;
    if (!version || version.template_id !== workspace.template_id) throw new NotFoundError('template version');
    return version;
  }

  /**
   * What the answers for these readable workspaces and their builds show besides the rows
   * themselves, in a fixed number of queries: owners, initiators, versions, jobs, resources,
   * agents and their reports, templates, organizations.
   */
  async listDetails(
    rows: readonly workspaces.WorkspaceRow[],
    builds: readonly workspaces.WorkspaceBuildRow[],
  ): Promise<workspaces.WorkspaceDetails> {
    for (const row of rows) this.require('read', workspaceRbac(row));
    const readable = new Set(rows.map((row) => row.id));
    if (builds.some((build) => !readable.has(build.workspace_id))) throw new NotFoundError('workspace build');
    return workspaces.listWorkspaceDetails(this.db, this.store.dialect, rows, builds);
  }

  /**
   * Live workspaces the lifecycle executor may have to start, stop, make dormant or delete at
   * `tick` (a superset its rules decide on), among those the subject may read.
   */
  async listDueForLifecycle(tick: Date): Promise<workspaces.WorkspaceRow[]> {
    const rows = await workspaceLists.listWorkspacesDueForLifecycle(this.db, this.store.dialect, tick);
    return rows.filter((row) => this.can('read', workspaceRbac(row)));
  }

  /**
   * The latest builds (with jobs), templates and owner statuses of readable workspaces, for the
   * lifecycle executor's decisions; in a fixed number of queries.
   */
  async lifecycleFacts(rows: readonly workspaces.WorkspaceRow[]): Promise<{
    builds: ReadonlyMap<string, workspaces.WorkspaceBuildRow>;
    jobs: ReadonlyMap<string, jobs.ProvisionerJobRow>;
    templates: ReadonlyMap<string, templates.TemplateRow>;
    ownerStatuses: ReadonlyMap<string, string>;
  }> {
    for (const row of rows) this.require('read', workspaceRbac(row));
    const db = this.db;
    const builds = await workspaces.latestBuilds(
      db,
      rows.map((w) => w.id),
    );
    const templateIds = [...new Set(rows.map((w) => w.template_id))];
    const ownerIds = [...new Set(rows.map((w) => w.owner_id))];
    const [jobRows, templateRows, owners] = await Promise.all([
      jobs.getJobsByIds(
        db,
        [...builds.values()].map((b) => b.job_id),
      ),
      templateIds.length === 0 ? [] : db.selectFrom('templates').selectAll().where('id', 'in', templateIds).execute(),
      ownerIds.length === 0 ? [] : db.selectFrom('users').select(['id', 'status']).where('id', 'in', ownerIds).execute(),
    ]);
    return {
      builds,
      jobs: new Map(jobRows.map((j) => [j.id, j])),
      templates: new Map(templateRows.map((t) => [t.id, t])),
      ownerStatuses: new Map(owners.map((u) => [u.id, u.status])),
    };
  }
}
