import type { ApiKeyRow } from '../store/rows.js';
import { mintToken } from './api-tokens.js';

/** What a new API key is for. */
export interface ApiKeySpec {
  readonly userId: string;
  readonly loginType: 'password' | 'token' | 'github' | 'oidc';
  readonly scope: 'all' | 'application_connect';
  readonly lifetimeMs: number;
  readonly tokenName: string;
  readonly ipAddress: string;
  readonly now: Date;
}

/** A key ready to store, and the token string to hand out once. */
export interface NewApiKey {
  readonly row: ApiKeyRow;
  readonly token: string;
}

/** Mints a key: a token for the client and the row the store keeps (with only a hash of the secret). */
export function newApiKey(spec: ApiKeySpec): NewApiKey {
  const minted = mintToken();
  const now = spec.now.toISOString();
  const lifetimeSeconds = Math.max(1, Math.round(spec.lifetimeMs / 1000));
  return {
    token: minted.token,
    row: {
      id: minted.id,
      hashed_secret: minted.hashedSecret,
      user_id: spec.userId,
      login_type: spec.loginType,
      scope: spec.scope,
      token_name: spec.tokenName,
      lifetime_seconds: lifetimeSeconds,
      expires_at: new Date(spec.now.getTime() + lifetimeSeconds * 1000).toISOString(),
      last_used: now,
      ip_address: spec.ipAddress,
      created_at: now,
      updated_at: now,
    },
  };
}
