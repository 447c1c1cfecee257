import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Uuid } from './common.js';

export const ApiKeyScope = Type.Union([Type.Literal('all'), Type.Literal('application_connect')]);
export type ApiKeyScope = Static<typeof ApiKeyScope>;

export const ApiKey = Type.Object({
  id: Type.String(),
  user_id: Uuid,
  created_at: DateTime,
  updated_at: DateTime,
  expires_at: DateTime,
  last_used: DateTime,
  lifetime_seconds: Type.Integer(),
  login_type: Type.String(),
  scope: ApiKeyScope,
  token_name: Type.String(),
});
export type ApiKey = Static<typeof ApiKey>;

export const ApiKeyWithOwner = Type.Composite([ApiKey, Type.Object({ username: Type.String() })]);
export type ApiKeyWithOwner = Static<typeof ApiKeyWithOwner>;

/** `lifetime` is in nanoseconds, as every duration on the wire. */
export const CreateTokenRequest = Type.Object({
  token_name: Type.Optional(Type.String({ maxLength: 128 })),
  lifetime: Type.Optional(Type.Integer()),
  scope: Type.Optional(ApiKeyScope),
});
export type CreateTokenRequest = Static<typeof CreateTokenRequest>;

export const GenerateApiKeyResponse = Type.Object({ key: Type.String() });
export type GenerateApiKeyResponse = Static<typeof GenerateApiKeyResponse>;

/** `max_token_lifetime` is in nanoseconds. */
export const TokenConfig = Type.Object({ max_token_lifetime: Type.Integer() });
export type TokenConfig = Static<typeof TokenConfig>;
