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
    if (mode === 'create') {
      await withConflicts(() =>
        this.db
          .insertInto('custom_roles')
          .values({ name: role.name, organization_id: role.organization_id, created_at: now, ...columns })
          .execute(),
      );
    } else {
      const result = await this.db
        .updateTable('custom_roles')
        .set(columns)
        .where('name', '=', role.name)
        .where('organization_id', '=', role.organization_id)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) throw new NotFoundError('role');
    }
    await this.store.invalidateSessions('*');
  }

  /** Deletes a custom role; members that held it keep the name, which then grants nothing. */
  async deleteCustom(organizationId: string, name: string): Promise<boolean> {
    this.require('delete', orgScoped('assign_org_role', organizationId));
    const result = await this.db
      .deleteFrom('custom_roles')
      .where('name', '=', name)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    await this.store.invalidateSessions('*');
    return Number(result.numDeletedRows) > 0;
  }
}
