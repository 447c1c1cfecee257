import type { Kysely } from 'kysely';
import type { AuditChange } from '../audit/audit-request.js';
import type { Database } from '../schema.js';
import { StoreFamily } from './store-family.js';
import { loadCustomRoles } from '../subjects.js';
import { withConflicts } from '../db-errors.js';
import { orgScoped, type Role } from '../../rbac/index.js';
import { NotFoundError } from '../../lib/errors.js';

/** Custom roles of organizations. */
export class RoleStore extends StoreFamily {
  /** The custom roles of one organization; needs read on the organization's role assignments. */
  async listCustom(organizationId: string): Promise<Role[]> {
    this.require('read', orgScoped('assign_org_role', organizationId));
    return loadCustomRoles(this.db, [organizationId]);
  }

  /**
   * Inserts (`create`) or replaces (`update`) a custom role of an organization. Its members' cached
   * sessions are dropped so the change takes effect at once.
   */
  async saveCustom(role: Role, mode: 'create' | 'update'): Promise<void> {
    this.require(mode, orgScoped('assign_org_role', role.organization_id));
    const now = this.store.nowIso();
    const columns = {
      display_name: role.display_name,
      site_permissions: JSON.stringify(role.site),
      org_permissions: JSON.stringify(role.org),
      user_permissions: JSON.stringify(role.user),
      updated_at: now,
    };
    await this.audited(
      async (trx) => {
        if (mode === 'create') {
          await withConflicts(() =>
            trx
              .insertInto('custom_roles')
              .values({ name: role.name, organization_id: role.organization_id, created_at: now, ...columns })
              .execute(),
          );
          return { before: undefined, after: await customRole(trx, role.organization_id, role.name) };
        }
        const before = await customRole(trx, role.organization_id, role.name);
        if (!before) throw new NotFoundError('role');
        await trx
          .updateTable('custom_roles')
          .set(columns)
          .where('name', '=', role.name)
          .where('organization_id', '=', role.organization_id)
          .execute();
        return { before, after: await customRole(trx, role.organization_id, role.name) };
      },
      ({ before, after }) => roleChange(mode === 'create' ? 'create' : 'write', before, after),
    );
    await this.store.invalidateSessions('*');
  }

  /** Deletes a custom role; members that held it keep the name, which then grants nothing. */
  async deleteCustom(organizationId: string, name: string): Promise<boolean> {
    this.require('delete', orgScoped('assign_org_role', organizationId));
    const deleted = await this.audited(
      async (trx) => {
        const before = await customRole(trx, organizationId, name);
        if (before) await trx.deleteFrom('custom_roles').where('name', '=', name).where('organization_id', '=', organizationId).execute();
        return before;
      },
      (before) => before && roleChange('delete', before, undefined),
    );
    await this.store.invalidateSessions('*');
    return deleted !== undefined;
  }
}

type CustomRoleRow = Database['custom_roles'];

async function customRole(trx: Kysely<Database>, organizationId: string, name: string): Promise<CustomRoleRow | undefined> {
  return trx
    .selectFrom('custom_roles')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('name', '=', name)
    .executeTakeFirst();
}

/** A custom role's audit entry. Roles have no id of their own: the name, unique in the organization, stands for one. */
function roleChange(action: string, before: CustomRoleRow | undefined, after: CustomRoleRow | undefined): AuditChange {
  const row = after ?? before;
  return {
    resourceType: 'custom_role',
    action,
    resourceId: row?.name ?? '',
    resourceTarget: row?.name ?? '',
    organizationId: row?.organization_id ?? '',
    old: before,
    new: after,
  };
}
