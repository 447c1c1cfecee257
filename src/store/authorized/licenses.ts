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
    return withConflicts(() => licenses.insertLicense(this.db, row));
  }

  /** The stored licenses the subject may read (all or none: licenses are deployment-wide). */
  async list(): Promise<licenses.LicenseRow[]> {
    if (!this.can('read', siteObject('license'))) return [];
    return licenses.listLicenses(this.db);
  }

  /** Deletes a license; needs `delete` on licenses. Throws NotFoundError when there is none with that id. */
  async delete(id: number): Promise<void> {
    this.require('delete', siteObject('license'));
    if (!(await licenses.deleteLicense(this.db, id))) throw new NotFoundError('license');
  }

  /** What entitlements are computed from: every license and the number of active users; needs `read` on both. */
  async entitlementInputs(): Promise<{ licenses: licenses.LicenseRow[]; activeUsers: number }> {
    this.require('read', siteObject('license'));
    this.require('read', siteObject('user'));
    const [rows, activeUsers] = await Promise.all([licenses.listLicenses(this.db), licenses.countActiveUsers(this.db)]);
    return { licenses: rows, activeUsers };
  }
}
