import type { AuditChange } from '../audit/audit-request.js';
import { StoreFamily, type StoreScope } from './store-family.js';
import type { UserStore } from './users.js';
import { withConflicts } from '../db-errors.js';
import { allowedRows } from '../authz-filter.js';
import { apiKeyObject, listFilter, userObject } from '../../rbac/index.js';
import { NotFoundError } from '../../lib/errors.js';
import * as apiKeys from '../queries/api-keys.js';

/** A named token with its owner's username, as token listings show it. */
export type TokenWithOwner = apiKeys.ApiKeyRow & { readonly username: string };

/** API keys and named tokens. */
export class TokenStore extends StoreFamily {
  /** The store's users family, for the reads of theirs a method here needs. */
  readonly #userStore: UserStore;

  constructor(scope: StoreScope, userStore: UserStore) {
    super(scope);
    this.#userStore = userStore;
  }

  /** Deletes every API key of a user, as a password change does. */
  async deleteAll(userId: string): Promise<void> {
    const current = await this.#userStore.get(userId);
    this.require('update_personal', userObject(current.id));
    await this.requireOutranks(current);
    await this.db.deleteFrom('api_keys').where('user_id', '=', current.id).execute();
    await this.store.invalidateSessions({ userId: current.id });
  }

  /** Stores a new key for its owner. */
  async insert(row: apiKeys.ApiKeyRow): Promise<apiKeys.ApiKeyRow> {
    this.require('create', apiKeyObject(row.user_id));
    await this.requireOutranks(row.user_id);
    // A sign-in's session key is the sign-in's own entry (`login`); named tokens are entries of their own.
    return this.audited(
      (trx) => withConflicts(() => apiKeys.insertApiKey(trx, row)),
      (created) => (created.login_type === 'token' ? tokenChange('create', created) : undefined),
    );
  }

  /** One key of one user by id. */
  async get(userId: string, keyId: string): Promise<apiKeys.ApiKeyRow> {
    const row = await apiKeys.getApiKeyById(this.db, keyId);
    if (!row || row.user_id !== userId) throw new NotFoundError('api key');
    this.require('read', apiKeyObject(row.user_id));
    return row;
  }

  /** Deletes one key of one user. */
  async delete(userId: string, keyId: string): Promise<void> {
    const row = await this.get(userId, keyId);
    this.require('delete', apiKeyObject(row.user_id));
    await this.requireOutranks(row.user_id);
    await this.audited(
      (trx) => apiKeys.deleteApiKey(trx, row.id),
      (deleted) => (deleted && row.login_type === 'token' ? tokenChange('delete', row) : undefined),
    );
    await this.store.invalidateSessions({ keyId: row.id });
  }

  /**
   * Named tokens of one user, or of every user (`all`), with their owners' usernames, filtered in
   * SQL to what the subject may read, newest first; `name` narrows to one token name.
   */
  async list(userId: string | 'all', filter: { readonly name?: string } = {}): Promise<TokenWithOwner[]> {
    const allowed = listFilter(this.subject, 'read', 'api_key');
    let query = this.db
      .selectFrom('api_keys as k')
      .innerJoin('users as u', 'u.id', 'k.user_id')
      .selectAll('k')
      .select('u.username')
      .where('k.login_type', '=', 'token')
      .where((eb) => allowedRows(eb, allowed, { org: null, owner: 'k.user_id' }));
    if (userId !== 'all') query = query.where('k.user_id', '=', userId);
    if (filter.name !== undefined) query = query.where('k.token_name', '=', filter.name);
    return query.orderBy('k.created_at', 'desc').orderBy('k.id').execute();
  }
}

/**
 * A named token's audit entry, named by the token's name (which the diff's secret pattern would
 * hide). Its hash stays out of the diff: only who holds it, what it may do and when it ends.
 */
function tokenChange(action: 'create' | 'delete', row: apiKeys.ApiKeyRow): AuditChange {
  const tracked = {
    user_id: row.user_id,
    scope: row.scope,
    expires_at: row.expires_at,
    created_at: row.created_at,
  };
  return {
    resourceType: 'api_key',
    action,
    resourceId: row.id,
    resourceTarget: row.token_name,
    ...(action === 'create' ? { new: tracked } : { old: tracked }),
  };
}
