import type { Kysely } from 'kysely';
import type { Database, ExternalAuthLinkTable } from '../schema.js';

/** The token columns of one link, as stored, and the key of the row. */
export type SealedTokenRow = Pick<
  ExternalAuthLinkTable,
  'provider_id' | 'user_id' | 'oauth_access_token' | 'oauth_access_token_key_id' | 'oauth_refresh_token' | 'oauth_refresh_token_key_id'
>;

/** Where a walk over the links stopped: the last row's key. */
export interface LinkCursor {
  readonly userId: string;
  readonly providerId: string;
}

/** The digests of every key some stored token is sealed with. */
export async function sealedTokenKeyIds(db: Kysely<Database>): Promise<string[]> {
  const [access, refresh] = await Promise.all([
    db
      .selectFrom('external_auth_links')
      .select('oauth_access_token_key_id as id')
      .distinct()
      .where('oauth_access_token_key_id', 'is not', null)
      .execute(),
    db
      .selectFrom('external_auth_links')
      .select('oauth_refresh_token_key_id as id')
      .distinct()
      .where('oauth_refresh_token_key_id', 'is not', null)
      .execute(),
  ]);
  return [...new Set([...access, ...refresh].map((row) => row.id).filter((id): id is string => id !== null))];
}

/**
 * The next `limit` links after `after`, in key order, whose tokens are not both as `wanted` says
 * (sealed with that key, or as is for null). On PostgreSQL the rows stay locked until the
 * transaction ends, so a refresh on a running daemon waits rather than being overwritten.
 */
export function linksNotSealedWith(
  db: Kysely<Database>,
  wanted: string | null,
  after: LinkCursor | undefined,
  options: { readonly limit: number; readonly lock: boolean },
): Promise<SealedTokenRow[]> {
  return db
    .selectFrom('external_auth_links')
    .select([
      'provider_id',
      'user_id',
      'oauth_access_token',
      'oauth_access_token_key_id',
      'oauth_refresh_token',
      'oauth_refresh_token_key_id',
    ])
    .where((eb) =>
      wanted === null
        ? eb.or([eb('oauth_access_token_key_id', 'is not', null), eb('oauth_refresh_token_key_id', 'is not', null)])
        : eb.or([
            eb('oauth_access_token_key_id', 'is', null),
            eb('oauth_access_token_key_id', '!=', wanted),
            eb('oauth_refresh_token_key_id', 'is', null),
            eb('oauth_refresh_token_key_id', '!=', wanted),
          ]),
    )
    .$if(after !== undefined, (q) =>
      q.where((eb) =>
        eb.or([
          eb('user_id', '>', after?.userId ?? ''),
          eb.and([eb('user_id', '=', after?.userId ?? ''), eb('provider_id', '>', after?.providerId ?? '')]),
        ]),
      ),
    )
    .orderBy('user_id')
    .orderBy('provider_id')
    .limit(options.limit)
    .$if(options.lock, (q) => q.forUpdate())
    .execute();
}

/** Writes a link's token columns again, as long as they still hold what was read: a token a daemon refreshed meanwhile is left alone. */
export async function rewriteLinkTokens(db: Kysely<Database>, read: SealedTokenRow, next: SealedTokenRow): Promise<boolean> {
  const result = await db
    .updateTable('external_auth_links')
    .set({
      oauth_access_token: next.oauth_access_token,
      oauth_access_token_key_id: next.oauth_access_token_key_id,
      oauth_refresh_token: next.oauth_refresh_token,
      oauth_refresh_token_key_id: next.oauth_refresh_token_key_id,
    })
    .where('provider_id', '=', read.provider_id)
    .where('user_id', '=', read.user_id)
    .where('oauth_access_token', '=', read.oauth_access_token)
    .where('oauth_refresh_token', '=', read.oauth_refresh_token)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes every link with a sealed token; returns how many. */
export async function deleteLinksWithSealedTokens(db: Kysely<Database>): Promise<number> {
  const result = await db
    .deleteFrom('external_auth_links')
    .where((eb) => eb.or([eb('oauth_access_token_key_id', 'is not', null), eb('oauth_refresh_token_key_id', 'is not', null)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
