import { StoreFamily } from './store-family.js';
import { orgScoped } from '../../rbac/index.js';
import * as provisionerDaemons from '../queries/provisioner-daemons.js';

/** Provisioner daemons. */
export class ProvisionerDaemonStore extends StoreFamily {
  /** The provisioner daemons that have served the organization, with their key names and whether each is busy. */
  async list(organizationId: string): Promise<provisionerDaemons.ProvisionerDaemonWithState[]> {
    this.require('read', orgScoped('provisioner_daemon', organizationId));
    return provisionerDaemons.listDaemonsWithState(this.db, organizationId);
  }

  /** Records a connecting daemon's row, or refreshes the row it had. */
  async register(row: provisionerDaemons.ProvisionerDaemonRow): Promise<void> {
    this.require('create', orgScoped('provisioner_daemon', row.organization_id));
    this.require('update', orgScoped('provisioner_daemon', row.organization_id));
    await provisionerDaemons.upsertDaemon(this.db, row);
  }

  /** Marks a daemon of the organization as seen now. */
  async touch(organizationId: string, daemonId: string): Promise<void> {
    this.require('update', orgScoped('provisioner_daemon', organizationId));
    await provisionerDaemons.touchDaemon(this.db, daemonId, this.store.nowIso());
  }
}
