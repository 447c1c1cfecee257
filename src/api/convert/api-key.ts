import type { ApiKey, ApiKeyScope, ApiKeyWithOwner } from '../../sdk/wire/index.js';
import type { TokenWithOwner } from '../../store/authorized-store.js';
import type { ApiKeyRow } from '../../store/rows.js';

/** A key row as the API shows it: never the hash. */
export function toWireApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    user_id: row.user_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    expires_at: row.expires_at,
    last_used: row.last_used,
    lifetime_seconds: Number(row.lifetime_seconds),
    login_type: row.login_type,
    scope: row.scope as ApiKeyScope,
    token_name: row.token_name,
  };
}

/** A token as token listings show it, with its owner's username. */
export function toWireApiKeyWithOwner(row: TokenWithOwner): ApiKeyWithOwner {
  return { ...toWireApiKey(row), username: row.username };
}
