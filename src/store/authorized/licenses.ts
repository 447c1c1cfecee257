import type { AuditChange } from '../audit/audit-request.js';
import { StoreFamily } from './store-family.js';
import { withConflicts } from '../db-errors.js';
import { siteObject } from '../../rbac/index.js';
import { NotFoundError } from '../../lib/errors.js';
import * as licenses from '../queries/licenses.js';

/** Licenses and the facts entitlements are computed from. */
export class LicenseStore extends StoreFamily {
  /** Stores a verified license; needs `create` on licenses. */
  async insert(row: Omit<licenses.LicenseRow, 'id'>): Promise<licenses.LicenseRow> {
    this.require('create', siteObject('license'));
    return this.audited(
      (trx) => withConflicts(() => licenses.insertLicense(trx, row)),
      (created) => licenseChange('create', created),
    );
  }

  /** The stored licenses the subject may read (all or none: licenses are deployment-wide). */
  async list(): Promise<licenses.LicenseRow[]> {
    if (!this.can('read', siteObject('license'))) return [];
    return licenses.listLicenses(this.db);
  }

  /** Deletes a license; needs `delete` on licenses. Throws NotFoundError when there is none with that id. */
  async delete(id: number): Promise<void> {
    this.require('delete', siteObject('license'));
    await this.audited(
      async (trx) => {
        const before = await licenses.getLicense(trx, id);
        if (!before || !(await licenses.deleteLicense(trx, id))) throw new NotFoundError('license');
        return before;
      },
      (before) => licenseChange('delete', before),
    );
  }

  /** What entitlements are computed from: every license and the number of active users; needs `read` on both. */
  async entitlementInputs(): Promise<{ licenses: licenses.LicenseRow[]; activeUsers: number }> {
    this.require('read', siteObject('license'));
    this.require('read', siteObject('user'));
    const [rows, activeUsers] = await Promise.all([licenses.listLicenses(this.db), licenses.countActiveUsers(this.db)]);
    return { licenses: rows, activeUsers };
  }
}

/** A license's audit entry: named by its uuid; the signed token itself is left out, as the reference does. */
function licenseChange(action: 'create' | 'delete', row: licenses.LicenseRow): AuditChange {
  const tracked = { uuid: row.uuid, uploaded_at: row.uploaded_at, exp: row.exp };
  return {
    resourceType: 'license',
    action,
    resourceId: row.uuid,
    resourceTarget: row.uuid,
    ...(action === 'create' ? { new: tracked } : { old: tracked }),
  };
}
