import type { Kysely, Selectable } from 'kysely';
import type { Database, ExternalAuthLinkTable, ExternalAuthStateTable } from '../schema.js';

export type ExternalAuthLinkRow = Selectable<ExternalAuthLinkTable>;
export type ExternalAuthStateRow = Selectable<ExternalAuthStateTable>;

/** One user's link to one provider, as stored (token columns sealed). */
export async function getExternalAuthLink(
  db: Kysely<Database>,
  providerId: string,
  userId: string,
  options: { readonly forUpdate?: boolean } = {},
): Promise<ExternalAuthLinkRow | undefined> {
  return db
    .selectFrom('external_auth_links')
    .selectAll()
    .where('provider_id', '=', providerId)
    .where('user_id', '=', userId)
    .$if(options.forUpdate === true, (q) => q.forUpdate())
    .executeTakeFirst();
}

/** A user's links, by provider id. */
export async function listExternalAuthLinks(db: Kysely<Database>, userId: string): Promise<ExternalAuthLinkRow[]> {
  return db.selectFrom('external_auth_links').selectAll().where('user_id', '=', userId).orderBy('provider_id').execute();
}

/** Stores a link, replacing the user's earlier link to the same provider (its creation time stays). */
export async function upsertExternalAuthLink(db: Kysely<Database>, row: ExternalAuthLinkRow): Promise<void> {
  await db
    .insertInto('external_auth_links')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['provider_id', 'user_id']).doUpdateSet({
        oauth_access_token: row.oauth_access_token,
        oauth_access_token_key_id: row.oauth_access_token_key_id,
        oauth_refresh_token: row.oauth_refresh_token,
        oauth_refresh_token_key_id: row.oauth_refresh_token_key_id,
        oauth_expiry: row.oauth_expiry,
        oauth_extra: row.oauth_extra,
        validate_error: row.validate_error,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

/** Changes what a link keeps after a refresh or a failed validation; false when there is no such link. */
export async function updateExternalAuthLink(
  db: Kysely<Database>,
  providerId: string,
  userId: string,
  changes: Partial<Omit<ExternalAuthLinkRow, 'provider_id' | 'user_id' | 'created_at'>>,
): Promise<boolean> {
  const result = await db
    .updateTable('external_auth_links')
    .set(changes)
    .where('provider_id', '=', providerId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Removes a link; false when there was none. */
export async function deleteExternalAuthLink(db: Kysely<Database>, providerId: string, userId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('external_auth_links')
    .where('provider_id', '=', providerId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Records a link flow under way, dropping flows that expired before `now` on the way. */
export async function insertExternalAuthState(db: Kysely<Database>, row: ExternalAuthStateRow, now: string): Promise<void> {
  await db.deleteFrom('external_auth_states').where('expires_at', '<', now).execute();
  await db.insertInto('external_auth_states').values(row).execute();
}

/**
 * Takes a link flow: deletes and returns the row of `stateHash` when it was started by `userId`,
 * so that each state is used once and only by the user it was given to. A flow of another user is
 * neither returned nor removed.
 */
export async function takeExternalAuthState(
  db: Kysely<Database>,
  stateHash: string,
  userId: string,
): Promise<ExternalAuthStateRow | undefined> {
  const row = await db
    .selectFrom('external_auth_states')
    .selectAll()
    .where('state_hash', '=', stateHash)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!row) return undefined;
  const result = await db.deleteFrom('external_auth_states').where('state_hash', '=', stateHash).executeTakeFirst();
  // Another request took it between the read and the delete: it is that request's.
  return Number(result.numDeletedRows) > 0 ? row : undefined;
}
