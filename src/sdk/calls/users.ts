import { ApiError } from '../api-error.js';
import { ClientCore } from '../client-core.js';
import type {
  CreateFirstUserRequest,
  CreateFirstUserResponse,
  CreateUserRequest,
  LoginWithPasswordResponse,
  Response,
  Organization,
  User,
  UsersResponse,
  ValidatePasswordResponse,
  ChangePasswordWithPasscodeRequest,
  ConvertLoginRequest,
  ConvertLoginResponse,
  GitSshKey,
  AuthMethods,
  UserLoginType,
  UpdateUserAppearanceSettingsRequest,
  UserAppearanceSettings,
  UserParameter,
  UserPreferenceSettings,
  UserQuietHoursScheduleResponse,
  UpdateUserQuietHoursScheduleRequest,
} from '../wire/index.js';

/**
 * Users: the first user, signing in, accounts and their git SSH keys.
 * Abstract: its methods run on a CoveClient, which installs them on its prototype (src/sdk/client.ts).
 */
export abstract class UsersCalls extends ClientCore {
  /** True once the deployment's first user exists. */
  async hasFirstUser(): Promise<boolean> {
    try {
      await this.request<Response>('GET', '/users/first');
      return true;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return false;
      throw error;
    }
  }

  createFirstUser(request: CreateFirstUserRequest): Promise<CreateFirstUserResponse> {
    return this.request('POST', '/users/first', { body: request });
  }

  login(email: string, password: string): Promise<LoginWithPasswordResponse> {
    return this.request('POST', '/users/login', { body: { email, password } });
  }

  logout(): Promise<Response> {
    return this.request('POST', '/users/logout');
  }

  validatePassword(password: string): Promise<ValidatePasswordResponse> {
    return this.request('POST', '/users/validate-password', { body: { password } });
  }

  /** Asks for a password-reset passcode by email; answers the same whether or not the email is known. */
  requestOneTimePasscode(email: string): Promise<void> {
    return this.request('POST', '/users/otp/request', { body: { email } });
  }

  changePasswordWithPasscode(request: ChangePasswordWithPasscodeRequest): Promise<void> {
    return this.request('POST', '/users/otp/change-password', { body: request });
  }

  /** The ways to sign in this deployment offers; needs no session. */
  authMethods(): Promise<AuthMethods> {
    return this.request('GET', '/users/authmethods');
  }

  /** Starts moving a password user to GitHub or OIDC sign-in. */
  convertLogin(user: string, request: ConvertLoginRequest): Promise<ConvertLoginResponse> {
    return this.request('POST', `/users/${encodeURIComponent(user)}/convert-login`, { body: request });
  }

  createUser(request: CreateUserRequest): Promise<User> {
    return this.request('POST', '/users', { body: request });
  }

  users(
    query: { readonly q?: string; readonly limit?: number; readonly offset?: number; readonly after_id?: string } = {},
  ): Promise<UsersResponse> {
    return this.request('GET', '/users', { query });
  }

  suspendUser(user: string): Promise<User> {
    return this.request('PUT', `/users/${encodeURIComponent(user)}/status/suspend`);
  }

  activateUser(user: string): Promise<User> {
    return this.request('PUT', `/users/${encodeURIComponent(user)}/status/activate`);
  }

  setSiteRoles(user: string, roles: readonly string[]): Promise<User> {
    return this.request('PUT', `/users/${encodeURIComponent(user)}/roles`, { body: { roles } });
  }

  updateProfile(user: string, profile: { readonly username: string; readonly name?: string }): Promise<User> {
    return this.request('PUT', `/users/${encodeURIComponent(user)}/profile`, { body: profile });
  }

  changePassword(user: string, body: { readonly old_password?: string; readonly password: string }): Promise<void> {
    return this.request('PUT', `/users/${encodeURIComponent(user)}/password`, { body });
  }

  deleteUser(user: string): Promise<Response> {
    return this.request('DELETE', `/users/${encodeURIComponent(user)}`);
  }

  user(user = 'me'): Promise<User> {
    return this.request('GET', `/users/${encodeURIComponent(user)}`);
  }

  userLoginType(user = 'me'): Promise<UserLoginType> {
    return this.request('GET', `/users/${encodeURIComponent(user)}/login-type`);
  }

  /** The organizations `user` belongs to that the caller may see. */
  userOrganizations(user = 'me'): Promise<Organization[]> {
    return this.request('GET', `/users/${encodeURIComponent(user)}/organizations`);
  }

  /** The public key the user's workspaces authenticate git over SSH with. */
  gitSshKey(user = 'me'): Promise<GitSshKey> {
    return this.request('GET', `/users/${encodeURIComponent(user)}/gitsshkey`);
  }

  /** Replaces the user's git SSH key pair with a new one; services that knew the old key must learn the new. */
  regenerateGitSshKey(user = 'me'): Promise<GitSshKey> {
    return this.request('PUT', `/users/${encodeURIComponent(user)}/gitsshkey`);
  }

  /** The user's theme and terminal font. */
  userAppearance(user = 'me'): Promise<UserAppearanceSettings> {
    return this.request('GET', `/users/${encodeURIComponent(user)}/appearance`);
  }

  updateUserAppearance(settings: UpdateUserAppearanceSettingsRequest, user = 'me'): Promise<UserAppearanceSettings> {
    return this.request('PUT', `/users/${encodeURIComponent(user)}/appearance`, { body: settings });
  }

  /** What the user dismissed or chose in the dashboard. */
  userPreferences(user = 'me'): Promise<UserPreferenceSettings> {
    return this.request('GET', `/users/${encodeURIComponent(user)}/preferences`);
  }

  updateUserPreferences(settings: UserPreferenceSettings, user = 'me'): Promise<UserPreferenceSettings> {
    return this.request('PUT', `/users/${encodeURIComponent(user)}/preferences`, { body: settings });
  }

  /** The user's quiet hours: when their template-required workspace stops happen. */
  userQuietHoursSchedule(user = 'me'): Promise<UserQuietHoursScheduleResponse> {
    return this.request('GET', `/users/${encodeURIComponent(user)}/quiet-hours`);
  }

  /** Sets the user's quiet hours; an empty schedule goes back to the deployment default. */
  updateUserQuietHoursSchedule(request: UpdateUserQuietHoursScheduleRequest, user = 'me'): Promise<UserQuietHoursScheduleResponse> {
    return this.request('PUT', `/users/${encodeURIComponent(user)}/quiet-hours`, { body: request });
  }

  /** The values the user last gave the template's parameters, for a create form to start from. */
  autofillParameters(templateId: string, user = 'me'): Promise<UserParameter[]> {
    return this.request('GET', `/users/${encodeURIComponent(user)}/autofill-parameters`, { query: { template_id: templateId } });
  }
}
