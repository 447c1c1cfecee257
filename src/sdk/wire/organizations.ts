import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Uuid } from './common.js';

export const Organization = Type.Object({
  id: Uuid,
  name: Type.String(),
  display_name: Type.String(),
  description: Type.String(),
  icon: Type.String(),
  created_at: DateTime,
  updated_at: DateTime,
  is_default: Type.Boolean(),
});
export type Organization = Static<typeof Organization>;

export const ValidatePasswordRequest = Type.Object({ password: Type.String() });
export type ValidatePasswordRequest = Static<typeof ValidatePasswordRequest>;

export const ValidatePasswordResponse = Type.Object({ valid: Type.Boolean(), details: Type.String() });
export type ValidatePasswordResponse = Static<typeof ValidatePasswordResponse>;
