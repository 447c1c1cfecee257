import type { AuditChange } from '../audit/audit-request.js';
import { StoreFamily } from './store-family.js';
import { withConflicts } from '../db-errors.js';
import { allowedRows } from '../authz-filter.js';
import { listFilter, organizationObject, siteObject } from '../../rbac/index.js';
import { isUuid } from '../../lib/random.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import * as members from '../queries/members.js';
import * as organizations from '../queries/organizations.js';

/** Organizations. */
export class OrganizationStore extends StoreFamily {
  /** An organization by id, by name, or `default`. */
  async get(idOrName: string): Promise<organizations.OrganizationRow> {
    const db = this.db;
    const row =
      idOrName === 'default' || idOrName === '00000000-0000-0000-0000-000000000000'
        ? await organizations.getDefaultOrganization(db)
        : isUuid(idOrName)
          ? await organizations.getOrganizationById(db, idOrName)
          : await organizations.getOrganizationByName(db, idOrName);
    if (!row) throw new NotFoundError('organization');
    this.require('read', organizationObject(row.id));
    return row;
  }

  /** The organizations the subject may read, by name; with `memberUserId`, only those that user belongs to. */
  async list(filter: { readonly memberUserId?: string } = {}): Promise<organizations.OrganizationRow[]> {
    const allowed = listFilter(this.subject, 'read', 'organization');
    const memberUserId = filter.memberUserId;
    let query = this.db
      .selectFrom('organizations')
      .selectAll()
      .where((eb) => allowedRows(eb, allowed, { org: 'id', owner: null }));
    if (memberUserId !== undefined) {
      query = query.where((eb) =>
        eb.exists(
          eb
            .selectFrom('organization_members as m')
            .select('m.user_id')
            .whereRef('m.organization_id', '=', 'organizations.id')
            .where('m.user_id', '=', memberUserId),
        ),
      );
    }
    return query.orderBy('name').execute();
  }

  /**
   * The default organization, created from `row` when there is none. Replicas starting at once
   * agree: the unique index decides and the loser reads the winner's row.
   */
  async ensureDefault(row: organizations.OrganizationRow): Promise<organizations.OrganizationRow> {
    this.require('read', siteObject('organization'));
    const existing = await organizations.getDefaultOrganization(this.db);
    if (existing) return existing;
    this.require('create', siteObject('organization'));
    try {
      return await withConflicts(() =>
        this.db.transaction().execute((trx) => organizations.insertOrganization(trx, { ...row, is_default: 1 })),
      );
    } catch (error) {
      const winner = error instanceof ConflictError ? await organizations.getDefaultOrganization(this.db) : undefined;
      if (!winner) throw error;
      return winner;
    }
  }

  /** Creates an organization with its creator as a member. */
  async create(row: organizations.OrganizationRow): Promise<organizations.OrganizationRow> {
    this.require('create', siteObject('organization'));
    return this.audited(
      async (trx) => {
        await withConflicts(() => organizations.insertOrganization(trx, row));
        await members.insertMember(trx, {
          user_id: this.subject.id,
          organization_id: row.id,
          roles: '[]',
          created_at: row.created_at,
          updated_at: row.created_at,
        });
        return row;
      },
      (created) => organizationChange('create', undefined, created),
    );
  }

  /** Changes an organization's fields. */
  async update(
    id: string,
    changes: Partial<Omit<organizations.OrganizationRow, 'id' | 'is_default'>>,
  ): Promise<organizations.OrganizationRow> {
    const current = await this.get(id);
    this.require('update', organizationObject(current.id));
    return this.audited(
      async (trx) => {
        await withConflicts(() =>
          trx
            .updateTable('organizations')
            .set({ ...changes, updated_at: this.store.nowIso() })
            .where('id', '=', current.id)
            .execute(),
        );
        return (await organizations.getOrganizationById(trx, current.id)) ?? { ...current, ...changes };
      },
      (updated) => organizationChange('write', current, updated),
    );
  }

  /** Deletes an organization and its memberships. */
  async delete(id: string): Promise<void> {
    const current = await this.get(id);
    this.require('delete', organizationObject(current.id));
    await this.audited(
      (trx) => trx.deleteFrom('organizations').where('id', '=', current.id).execute(),
      () => organizationChange('delete', current, undefined),
    );
    await this.store.invalidateSessions('*');
  }
}

/** An organization's audit entry: the organization is its own. */
function organizationChange(
  action: string,
  before: organizations.OrganizationRow | undefined,
  after: organizations.OrganizationRow | undefined,
): AuditChange {
  const row = after ?? before;
  return {
    resourceType: 'organization',
    action,
    resourceId: row?.id ?? '',
    resourceTarget: row?.name ?? '',
    resourceIcon: row?.icon ?? '',
    organizationId: row?.id ?? '',
    old: before,
    new: after,
  };
}
