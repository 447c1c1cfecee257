import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Nullable, SlimRole, Uuid } from './common.js';

export const UserStatus = Type.Union([Type.Literal('active'), Type.Literal('dormant'), Type.Literal('suspended')]);
export type UserStatus = Static<typeof UserStatus>;

export const LoginType = Type.Union([
  Type.Literal('password'),
  Type.Literal('github'),
  Type.Literal('oidc'),
  Type.Literal('token'),
  Type.Literal('none'),
]);
export type LoginType = Static<typeof LoginType>;

export const User = Type.Object({
  id: Uuid,
  username: Type.String(),
  /** Name, avatar and theme are left out when empty, as the reference's server leaves them out. */
  name: Type.Optional(Type.String()),
  email: Type.String(),
  avatar_url: Type.Optional(Type.String()),
  created_at: DateTime,
  updated_at: DateTime,
  last_seen_at: DateTime,
  status: UserStatus,
  login_type: Type.String(),
  theme_preference: Type.Optional(Type.String()),
  organization_ids: Type.Array(Uuid),
  roles: Type.Array(SlimRole),
});
export type User = Static<typeof User>;

export const CreateFirstUserRequest = Type.Object({
  email: Type.String({ format: 'email' }),
  username: Type.String({ minLength: 1 }),
  name: Type.Optional(Type.String()),
  password: Type.String({ minLength: 1 }),
  trial: Type.Optional(Type.Boolean()),
});
export type CreateFirstUserRequest = Static<typeof CreateFirstUserRequest>;

export const CreateFirstUserResponse = Type.Object({ user_id: Uuid, organization_id: Uuid });
export type CreateFirstUserResponse = Static<typeof CreateFirstUserResponse>;

export const LoginWithPasswordRequest = Type.Object({
  email: Type.String({ format: 'email' }),
  password: Type.String({ minLength: 1 }),
});
export type LoginWithPasswordRequest = Static<typeof LoginWithPasswordRequest>;

export const LoginWithPasswordResponse = Type.Object({ session_token: Type.String() });
export type LoginWithPasswordResponse = Static<typeof LoginWithPasswordResponse>;

export const CreateUserRequest = Type.Object({
  email: Type.String({ format: 'email' }),
  username: Type.String({ minLength: 1 }),
  name: Type.Optional(Type.String()),
  password: Type.Optional(Type.String()),
  login_type: Type.Optional(Type.String()),
  /** The reference's create form sends `null` for "the default" (dormant). */
  user_status: Type.Optional(Nullable(UserStatus)),
  organization_ids: Type.Optional(Type.Array(Type.String({ format: 'uuid' }))),
});
export type CreateUserRequest = Static<typeof CreateUserRequest>;

export const UsersResponse = Type.Object({ users: Type.Array(User), count: Type.Integer() });
export type UsersResponse = Static<typeof UsersResponse>;

export const RequestOneTimePasscodeRequest = Type.Object({ email: Type.String({ format: 'email' }) });
export type RequestOneTimePasscodeRequest = Static<typeof RequestOneTimePasscodeRequest>;

export const ChangePasswordWithPasscodeRequest = Type.Object({
  email: Type.String({ format: 'email' }),
  one_time_passcode: Type.String({ minLength: 1 }),
  password: Type.String({ minLength: 1 }),
});
export type ChangePasswordWithPasscodeRequest = Static<typeof ChangePasswordWithPasscodeRequest>;

export const ConvertLoginRequest = Type.Object({
  to_type: Type.String({ minLength: 1 }),
  password: Type.String({ minLength: 1 }),
});
export type ConvertLoginRequest = Static<typeof ConvertLoginRequest>;

export const ConvertLoginResponse = Type.Object({
  expires_at: DateTime,
  state_string: Type.String(),
  to_type: Type.String(),
  user_id: Uuid,
});
export type ConvertLoginResponse = Static<typeof ConvertLoginResponse>;

/** `GET /users/authmethods`: the ways to sign in that this deployment offers. */
export const AuthMethods = Type.Object({
  terms_of_service_url: Type.Optional(Type.String()),
  password: Type.Object({ enabled: Type.Boolean() }),
  github: Type.Object({ enabled: Type.Boolean(), default_provider_configured: Type.Boolean() }),
  oidc: Type.Object({ enabled: Type.Boolean(), signInText: Type.String(), iconUrl: Type.String() }),
});
export type AuthMethods = Static<typeof AuthMethods>;

export const UserLoginType = Type.Object({ login_type: Type.String() });
export type UserLoginType = Static<typeof UserLoginType>;

/** A user in the few fields a picker shows; name and avatar are left out when empty, as the reference sends them. */
export const MinimalUser = Type.Object({
  id: Uuid,
  username: Type.String(),
  name: Type.Optional(Type.String()),
  avatar_url: Type.Optional(Type.String()),
});
export type MinimalUser = Static<typeof MinimalUser>;

/** A parameter value the user gave before (`GET /users/{user}/autofill-parameters`). */
export const UserParameter = Type.Object({ name: Type.String(), value: Type.String() });
export type UserParameter = Static<typeof UserParameter>;
