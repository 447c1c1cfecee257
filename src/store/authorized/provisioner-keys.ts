import { StoreFamily } from './store-family.js';
import { withConflicts } from '../db-errors.js';
import { orgScoped } from '../../rbac/index.js';
import { NotFoundError } from '../../lib/errors.js';
import * as provisionerKeys from '../queries/provisioner-keys.js';

/** Provisioner keys. */
export class ProvisionerKeyStore extends StoreFamily {
  /** Creates a key that lets a provisioner daemon serve the organization. */
  async insert(row: provisionerKeys.ProvisionerKeyRow): Promise<void> {
    this.require('create', orgScoped('provisioner_daemon', row.organization_id));
    await withConflicts(() => provisionerKeys.insertProvisionerKey(this.db, row));
  }

  /** The organization's provisioner keys (never their secrets, which are not stored). */
  async list(organizationId: string): Promise<provisionerKeys.ProvisionerKeyRow[]> {
    this.require('read', orgScoped('provisioner_daemon', organizationId));
    return provisionerKeys.listProvisionerKeys(this.db, organizationId);
  }

  /** The key whose secret hashes to `hashedSecret`, to authenticate a connecting daemon. */
  async getByHash(hashedSecret: string): Promise<provisionerKeys.ProvisionerKeyRow> {
    const row = await provisionerKeys.getProvisionerKeyByHash(this.db, hashedSecret);
    if (!row) throw new NotFoundError('provisioner key');
    this.require('read', orgScoped('provisioner_daemon', row.organization_id));
    return row;
  }

  /** Deletes a key by name; daemons that used it are refused from their next connection on. */
  async delete(organizationId: string, name: string): Promise<void> {
    this.require('delete', orgScoped('provisioner_daemon', organizationId));
    if (!(await provisionerKeys.deleteProvisionerKey(this.db, organizationId, name))) throw new NotFoundError('provisioner key');
  }
}
