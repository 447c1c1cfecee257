import { headerValue, openHttpRequest, sendHttpRequest } from './http-transport.js';
import { ApiError } from './api-error.js';
import type {
  ApiKey,
  ApiKeyWithOwner,
  BuildInfo,
  CreateFirstUserRequest,
  CreateFirstUserResponse,
  CreateTokenRequest,
  CreateUserRequest,
  DeploymentConfig,
  DeploymentStats,
  Experiments,
  GenerateApiKeyResponse,
  HealthReport,
  HealthSettings,
  LoginWithPasswordResponse,
  Response,
  SshConfig,
  TokenConfig,
  AssignableRole,
  CreateOrganizationRequest,
  Organization,
  OrganizationMember,
  OrganizationMemberWithUser,
  PaginatedMembers,
  CustomRoleRequest,
  RoleObject,
  UpdateOrganizationRequest,
  UpdateCheck,
  User,
  UsersResponse,
  ValidatePasswordResponse,
  UploadResponse,
  CreateWorkspaceBuildRequest,
  CreateWorkspaceRequest,
  PortShare,
  Workspace,
  WorkspaceBuild,
  WorkspacesResponse,
  CreateProvisionerKeyRequest,
  CreateProvisionerKeyResponse,
  CreateTemplateRequest,
  CreateTemplateVersionRequest,
  DynamicParametersRequest,
  DynamicParametersResponse,
  PatchTemplateVersionRequest,
  ProvisionerDaemon,
  ProvisionerJob,
  ProvisionerJobLog,
  ProvisionerKey,
  Template,
  TemplateExample,
  TemplateVersion,
  TemplateVersionParameter,
  TemplateVersionPreset,
  TemplateVersionVariable,
  UpdateTemplateMeta,
  WorkspaceResource,
  PatchAgentLogsRequest,
  AgentExternalAuthQuery,
  AgentExternalAuthResponse,
  PostLogSourceRequest,
  WorkspaceAgent,
  WorkspaceAgentLog,
  WorkspaceAgentLogSource,
  ChangePasswordWithPasscodeRequest,
  ConvertLoginRequest,
  ConvertLoginResponse,
  DausResponse,
  Entitlements,
  License,
  TemplateInsightsResponse,
  UserActivityInsightsResponse,
  UserLatencyInsightsResponse,
  UserStatusCountsResponse,
  GitSshKey,
  AuthMethods,
  UserLoginType,
  WorkspaceBuildTimings,
} from './wire/index.js';

/** The range of an insights report: RFC 3339 times with the client's offset; template ids comma-separated. */
export type InsightsRange = {
  readonly start_time: string;
  readonly end_time: string;
  readonly template_ids?: string;
};

/** One named check of `POST /authcheck`. */
export interface AuthorizationCheck {
  readonly action: string;
  readonly object: {
    readonly resource_type: string;
    readonly owner_id?: string;
    readonly organization_id?: string;
    readonly resource_id?: string;
    readonly any_org?: boolean;
  };
}

/** The header that carries the session token. */
export const SESSION_TOKEN_HEADER = 'Service-Session-Token';

/** How to reach a daemon. */
export interface ClientOptions {
  /** Base URL of the deployment, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  readonly token?: string | undefined;
  /** Called with the version the daemon reports on each JSON answer (the CLI warns on a mismatch). */
  readonly onServerVersion?: (version: string) => void;
}

type Query = Readonly<Record<string, string | number | boolean | undefined>>;

interface RequestOptions {
  readonly body?: unknown;
  readonly query?: Query;
}

/**
 * A typed client of `/api/v2`. The CLI and the tests use it alike; every failure is an ApiError
 * carrying the spec's error body.
 */
export class CoveClient {
  readonly url: string;
  #token: string | undefined;
  readonly #onServerVersion: ((version: string) => void) | undefined;

  constructor(options: ClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.#token = options.token;
    this.#onServerVersion = options.onServerVersion;
  }

  get token(): string | undefined {
    return this.#token;
  }

  /** A client for the same deployment with another token. */
  withToken(token: string | undefined): CoveClient {
    return new CoveClient({ url: this.url, token, onServerVersion: this.#onServerVersion });
  }

  /** Sends one request and parses the JSON answer; throws ApiError on any non-2xx status. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const url = new URL(`${this.url}/api/v2${path}`);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.#token) headers[SESSION_TOKEN_HEADER] = this.#token;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await sendHttpRequest(url, { method, headers, body });
    this.#onServerVersion?.(headerValue(response.headers, 'x-cove-build-version') ?? '');
    const text = response.body.toString('utf8');
    // 304 Not Modified: the request changed nothing, which is not a failure.
    if (response.status === 304) return undefined as T;
    if (response.status < 200 || response.status > 299)
      throw new ApiError(response.status, method, url.toString(), parseErrorBody(text, response.status));
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /**
   * Sends a request whose body or answer is not JSON (archives). Returns the raw answer; throws
   * ApiError on any non-2xx status like `request`.
   */
  async requestBytes(
    method: string,
    path: string,
    options: { readonly body?: Uint8Array; readonly contentType?: string; readonly query?: Query } = {},
  ): Promise<{ readonly status: number; readonly contentType: string; readonly body: Buffer }> {
    const url = new URL(`${this.url}/api/v2${path}`);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = {};
    if (this.#token) headers[SESSION_TOKEN_HEADER] = this.#token;
    if (options.contentType) headers['content-type'] = options.contentType;
    const response = await sendHttpRequest(url, { method, headers, body: options.body });
    if (response.status < 200 || response.status > 299)
      throw new ApiError(response.status, method, url.toString(), parseErrorBody(response.body.toString('utf8'), response.status));
    return { status: response.status, contentType: headerValue(response.headers, 'content-type') ?? '', body: response.body };
  }

  // Files

  /** Uploads a template archive (`application/x-tar` or `application/zip`); `created` is false when the same bytes were uploaded before. */
  async uploadFile(data: Uint8Array, contentType = 'application/x-tar'): Promise<{ readonly id: string; readonly created: boolean }> {
    const answer = await this.requestBytes('POST', '/files', { body: data, contentType });
    return { id: (JSON.parse(answer.body.toString('utf8')) as UploadResponse).hash, created: answer.status === 201 };
  }

  /** Downloads a file as stored (a tar), or converted to zip. */
  async downloadFile(id: string, format?: 'zip'): Promise<Buffer> {
    return (await this.requestBytes('GET', `/files/${encodeURIComponent(id)}`, { query: { format } })).body;
  }

  // General and deployment

  buildInfo(): Promise<BuildInfo> {
    return this.request('GET', '/buildinfo');
  }

  updateCheck(): Promise<UpdateCheck> {
    return this.request('GET', '/updatecheck');
  }

  deploymentStats(): Promise<DeploymentStats> {
    return this.request('GET', '/deployment/stats');
  }

  addLicense(license: string): Promise<License> {
    return this.request('POST', '/licenses', { body: { license } });
  }

  licenses(): Promise<License[]> {
    return this.request('GET', '/licenses');
  }

  async deleteLicense(id: number | string): Promise<void> {
    await this.request('DELETE', `/licenses/${encodeURIComponent(String(id))}`);
  }

  refreshEntitlements(): Promise<Response> {
    return this.request('POST', '/licenses/refresh-entitlements');
  }

  entitlements(): Promise<Entitlements> {
    return this.request('GET', '/entitlements');
  }

  /** Distinct users per day over the last 60 days, dated in `tzOffset` hours east of UTC. */
  /** Distinct users of one template's workspaces per day, for the last 60 days (UTC days without an offset). */
  templateDaus(templateId: string, tzOffset?: number): Promise<DausResponse> {
    return this.request('GET', `/templates/${encodeURIComponent(templateId)}/daus`, { query: { tz_offset: tzOffset } });
  }

  insightsDaus(tzOffset: number): Promise<DausResponse> {
    return this.request('GET', '/insights/daus', { query: { tz_offset: tzOffset } });
  }

  templateInsights(query: InsightsRange & { readonly interval: 'day' | 'week' }): Promise<TemplateInsightsResponse> {
    return this.request('GET', '/insights/templates', { query });
  }

  userActivityInsights(query: InsightsRange): Promise<UserActivityInsightsResponse> {
    return this.request('GET', '/insights/user-activity', { query });
  }

  userLatencyInsights(query: InsightsRange): Promise<UserLatencyInsightsResponse> {
    return this.request('GET', '/insights/user-latency', { query });
  }

  userStatusCounts(tzOffset: number): Promise<UserStatusCountsResponse> {
    return this.request('GET', '/insights/user-status-counts', { query: { tz_offset: tzOffset } });
  }

  deploymentConfig(): Promise<DeploymentConfig> {
    return this.request('GET', '/deployment/config');
  }

  deploymentSsh(): Promise<SshConfig> {
    return this.request('GET', '/deployment/ssh');
  }

  // Health

  /** The deployment's health report: the last one, or a new run with `force`. */
  healthReport(options: { readonly force?: boolean } = {}): Promise<HealthReport> {
    return this.request('GET', '/debug/health', { query: { force: options.force } });
  }

  healthSettings(): Promise<HealthSettings> {
    return this.request('GET', '/debug/health/settings');
  }

  updateHealthSettings(settings: HealthSettings): Promise<HealthSettings> {
    return this.request('PUT', '/debug/health/settings', { body: settings });
  }

  experiments(): Promise<Experiments> {
    return this.request('GET', '/experiments');
  }

  availableExperiments(): Promise<Experiments> {
    return this.request('GET', '/experiments/available');
  }

  reportCsp(report: Record<string, unknown>): Promise<void> {
    return this.request('POST', '/csp/reports', { body: { 'csp-report': report } });
  }

  // Sign-in

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

  // Organizations

  organizations(): Promise<Organization[]> {
    return this.request('GET', '/organizations');
  }

  organization(idOrName: string): Promise<Organization> {
    return this.request('GET', `/organizations/${encodeURIComponent(idOrName)}`);
  }

  siteRoles(): Promise<AssignableRole[]> {
    return this.request('GET', '/users/roles');
  }

  organizationRoles(organization: string): Promise<AssignableRole[]> {
    return this.request('GET', `/organizations/${encodeURIComponent(organization)}/members/roles`);
  }

  /** Asks which of the named checks the caller passes. */
  authCheck(checks: Readonly<Record<string, AuthorizationCheck>>): Promise<Record<string, boolean>> {
    return this.request('POST', '/authcheck', { body: { checks } });
  }

  createOrganization(request: CreateOrganizationRequest): Promise<Organization> {
    return this.request('POST', '/organizations', { body: request });
  }

  updateOrganization(organization: string, request: UpdateOrganizationRequest): Promise<Organization> {
    return this.request('PATCH', `/organizations/${encodeURIComponent(organization)}`, { body: request });
  }

  deleteOrganization(organization: string): Promise<Response> {
    return this.request('DELETE', `/organizations/${encodeURIComponent(organization)}`);
  }

  organizationMembers(organization: string): Promise<OrganizationMemberWithUser[]> {
    return this.request('GET', `/organizations/${encodeURIComponent(organization)}/members`);
  }

  paginatedMembers(organization: string, page: { readonly limit?: number; readonly offset?: number } = {}): Promise<PaginatedMembers> {
    return this.request('GET', `/organizations/${encodeURIComponent(organization)}/paginated-members`, { query: page });
  }

  addMember(organization: string, user: string): Promise<OrganizationMember> {
    return this.request('POST', `/organizations/${encodeURIComponent(organization)}/members/${encodeURIComponent(user)}`);
  }

  removeMember(organization: string, user: string): Promise<void> {
    return this.request('DELETE', `/organizations/${encodeURIComponent(organization)}/members/${encodeURIComponent(user)}`);
  }

  setMemberRoles(organization: string, user: string, roles: readonly string[]): Promise<OrganizationMember> {
    return this.request('PUT', `/organizations/${encodeURIComponent(organization)}/members/${encodeURIComponent(user)}/roles`, {
      body: { roles },
    });
  }

  createCustomRole(organization: string, role: CustomRoleRequest): Promise<RoleObject[]> {
    return this.request('POST', `/organizations/${encodeURIComponent(organization)}/members/roles`, { body: role });
  }

  updateCustomRole(organization: string, role: CustomRoleRequest): Promise<RoleObject[]> {
    return this.request('PUT', `/organizations/${encodeURIComponent(organization)}/members/roles`, { body: role });
  }

  deleteCustomRole(organization: string, name: string): Promise<RoleObject[]> {
    return this.request('DELETE', `/organizations/${encodeURIComponent(organization)}/members/roles/${encodeURIComponent(name)}`);
  }

  // Templates and versions

  templateExamples(): Promise<TemplateExample[]> {
    return this.request('GET', '/templates/examples');
  }

  createTemplateVersion(organization: string, request: CreateTemplateVersionRequest): Promise<TemplateVersion> {
    return this.request('POST', `/organizations/${encodeURIComponent(organization)}/templateversions`, { body: request });
  }

  templateVersion(id: string): Promise<TemplateVersion> {
    return this.request('GET', `/templateversions/${encodeURIComponent(id)}`);
  }

  updateTemplateVersion(id: string, request: PatchTemplateVersionRequest): Promise<TemplateVersion> {
    return this.request('PATCH', `/templateversions/${encodeURIComponent(id)}`, { body: request });
  }

  cancelTemplateVersion(id: string): Promise<Response> {
    return this.request('PATCH', `/templateversions/${encodeURIComponent(id)}/cancel`);
  }

  archiveTemplateVersion(id: string, archive = true): Promise<Response> {
    return this.request('POST', `/templateversions/${encodeURIComponent(id)}/${archive ? 'archive' : 'unarchive'}`);
  }

  templateVersionLogs(id: string, range: { readonly after?: number; readonly before?: number } = {}): Promise<ProvisionerJobLog[]> {
    return this.request('GET', `/templateversions/${encodeURIComponent(id)}/logs`, { query: range });
  }

  /**
   * Follows a version's import logs over a WebSocket: calls `onLog` for the backlog after `after`
   * and then for each new line, and resolves when the job has finished and the stream closed.
   */
  followTemplateVersionLogs(id: string, onLog: (log: ProvisionerJobLog) => void, after?: number): Promise<void> {
    return this.#follow(
      `/templateversions/${encodeURIComponent(id)}/logs`,
      { follow: true, ...(after === undefined ? {} : { after }) },
      (text) => onLog(JSON.parse(text) as ProvisionerJobLog),
    );
  }

  templateVersionResources(id: string): Promise<WorkspaceResource[]> {
    return this.request('GET', `/templateversions/${encodeURIComponent(id)}/resources`);
  }

  templateVersionRichParameters(id: string): Promise<TemplateVersionParameter[]> {
    return this.request('GET', `/templateversions/${encodeURIComponent(id)}/rich-parameters`);
  }

  templateVersionVariables(id: string): Promise<TemplateVersionVariable[]> {
    return this.request('GET', `/templateversions/${encodeURIComponent(id)}/variables`);
  }

  templateVersionPresets(id: string): Promise<TemplateVersionPreset[]> {
    return this.request('GET', `/templateversions/${encodeURIComponent(id)}/presets`);
  }

  /** Plans a workspace from a version without creating anything. */
  createDryRun(
    versionId: string,
    request: { readonly workspace_name?: string; readonly rich_parameter_values?: readonly { name: string; value: string }[] } = {},
  ): Promise<ProvisionerJob> {
    return this.request('POST', `/templateversions/${encodeURIComponent(versionId)}/dry-run`, { body: request });
  }

  dryRun(versionId: string, jobId: string): Promise<ProvisionerJob> {
    return this.request('GET', `/templateversions/${encodeURIComponent(versionId)}/dry-run/${encodeURIComponent(jobId)}`);
  }

  dryRunResources(versionId: string, jobId: string): Promise<WorkspaceResource[]> {
    return this.request('GET', `/templateversions/${encodeURIComponent(versionId)}/dry-run/${encodeURIComponent(jobId)}/resources`);
  }

  dryRunLogs(versionId: string, jobId: string): Promise<ProvisionerJobLog[]> {
    return this.request('GET', `/templateversions/${encodeURIComponent(versionId)}/dry-run/${encodeURIComponent(jobId)}/logs`);
  }

  cancelDryRun(versionId: string, jobId: string): Promise<Response> {
    return this.request('PATCH', `/templateversions/${encodeURIComponent(versionId)}/dry-run/${encodeURIComponent(jobId)}/cancel`);
  }

  /** Evaluates a version's parameters against form inputs, with diagnostics for invalid ones. */
  evaluateDynamicParameters(versionId: string, request: DynamicParametersRequest): Promise<DynamicParametersResponse> {
    return this.request('POST', `/templateversions/${encodeURIComponent(versionId)}/dynamic-parameters/evaluate`, { body: request });
  }

  createTemplate(organization: string, request: CreateTemplateRequest): Promise<Template> {
    return this.request('POST', `/organizations/${encodeURIComponent(organization)}/templates`, { body: request });
  }

  /** Templates the caller can see, across organizations; `q` as the search syntax takes it. */
  templates(q?: string): Promise<Template[]> {
    return this.request('GET', '/templates', { query: { q } });
  }

  organizationTemplates(organization: string, q?: string): Promise<Template[]> {
    return this.request('GET', `/organizations/${encodeURIComponent(organization)}/templates`, { query: { q } });
  }

  template(id: string): Promise<Template> {
    return this.request('GET', `/templates/${encodeURIComponent(id)}`);
  }

  templateByName(organization: string, name: string): Promise<Template> {
    return this.request('GET', `/organizations/${encodeURIComponent(organization)}/templates/${encodeURIComponent(name)}`);
  }

  /** Updates template metadata; resolves undefined when nothing changed (304). */
  async updateTemplate(id: string, request: UpdateTemplateMeta): Promise<Template | undefined> {
    return this.request('PATCH', `/templates/${encodeURIComponent(id)}`, { body: request });
  }

  deleteTemplate(id: string): Promise<Response> {
    return this.request('DELETE', `/templates/${encodeURIComponent(id)}`);
  }

  templateVersions(
    templateId: string,
    query: { readonly include_archived?: boolean; readonly limit?: number; readonly offset?: number; readonly after_id?: string } = {},
  ): Promise<TemplateVersion[]> {
    return this.request('GET', `/templates/${encodeURIComponent(templateId)}/versions`, { query });
  }

  templateVersionByName(templateId: string, name: string): Promise<TemplateVersion> {
    return this.request('GET', `/templates/${encodeURIComponent(templateId)}/versions/${encodeURIComponent(name)}`);
  }

  /** Makes a successfully imported version the template's active one. */
  promoteTemplateVersion(templateId: string, versionId: string): Promise<Response> {
    return this.request('PATCH', `/templates/${encodeURIComponent(templateId)}/versions`, { body: { id: versionId } });
  }

  archiveTemplateVersions(templateId: string, all = false): Promise<{ template_id: string; archived_ids: string[] }> {
    return this.request('POST', `/templates/${encodeURIComponent(templateId)}/versions/archive`, { body: { all } });
  }

  // Workspaces

  createWorkspace(user: string, request: CreateWorkspaceRequest): Promise<Workspace> {
    return this.request('POST', `/users/${encodeURIComponent(user)}/workspaces`, { body: request });
  }

  createOrganizationWorkspace(organization: string, user: string, request: CreateWorkspaceRequest): Promise<Workspace> {
    return this.request('POST', `/organizations/${encodeURIComponent(organization)}/members/${encodeURIComponent(user)}/workspaces`, {
      body: request,
    });
  }

  /** Workspaces the caller can see; `q` takes `owner:`, `template:`, `name:`, `status:`, `outdated:`, `dormant:`, `has-agent:`. */
  workspaces(query: { readonly q?: string; readonly limit?: number; readonly offset?: number } = {}): Promise<WorkspacesResponse> {
    return this.request('GET', '/workspaces', { query });
  }

  workspace(id: string, includeDeleted = false): Promise<Workspace> {
    return this.request('GET', `/workspaces/${encodeURIComponent(id)}`, { query: includeDeleted ? { include_deleted: true } : {} });
  }

  workspaceByOwnerAndName(user: string, name: string, includeDeleted = false): Promise<Workspace> {
    return this.request('GET', `/users/${encodeURIComponent(user)}/workspace/${encodeURIComponent(name)}`, {
      query: includeDeleted ? { include_deleted: true } : {},
    });
  }

  renameWorkspace(id: string, name: string): Promise<void> {
    return this.request('PATCH', `/workspaces/${encodeURIComponent(id)}`, { body: { name } });
  }

  createWorkspaceBuild(workspaceId: string, request: CreateWorkspaceBuildRequest): Promise<WorkspaceBuild> {
    return this.request('POST', `/workspaces/${encodeURIComponent(workspaceId)}/builds`, { body: request });
  }

  workspaceBuilds(workspaceId: string): Promise<WorkspaceBuild[]> {
    return this.request('GET', `/workspaces/${encodeURIComponent(workspaceId)}/builds`);
  }

  workspaceBuild(id: string): Promise<WorkspaceBuild> {
    return this.request('GET', `/workspacebuilds/${encodeURIComponent(id)}`);
  }

  workspaceBuildByNumber(user: string, workspace: string, buildNumber: number): Promise<WorkspaceBuild> {
    return this.request('GET', `/users/${encodeURIComponent(user)}/workspace/${encodeURIComponent(workspace)}/builds/${buildNumber}`);
  }

  cancelWorkspaceBuild(id: string): Promise<Response> {
    return this.request('PATCH', `/workspacebuilds/${encodeURIComponent(id)}/cancel`);
  }

  workspaceBuildLogs(id: string): Promise<ProvisionerJobLog[]> {
    return this.request('GET', `/workspacebuilds/${encodeURIComponent(id)}/logs`);
  }

  /** Follows a build's logs until its job ends, or `signal` aborts. */
  followWorkspaceBuildLogs(id: string, onLog: (log: ProvisionerJobLog) => void, after?: number, signal?: AbortSignal): Promise<void> {
    return this.#follow(
      `/workspacebuilds/${encodeURIComponent(id)}/logs`,
      { follow: true, ...(after === undefined ? {} : { after }) },
      (text) => onLog(JSON.parse(text) as ProvisionerJobLog),
      signal,
    );
  }

  /** The provisioner state a build recorded, as stored (template managers only). */
  async workspaceBuildState(id: string): Promise<Buffer> {
    return (await this.requestBytes('GET', `/workspacebuilds/${encodeURIComponent(id)}/state`)).body;
  }

  /** Replaces a build's provisioner state without building (template managers only). */
  updateWorkspaceBuildState(id: string, state: Uint8Array): Promise<void> {
    return this.request('PUT', `/workspacebuilds/${encodeURIComponent(id)}/state`, {
      body: { state: Buffer.from(state).toString('base64') },
    });
  }

  workspaceBuildParameters(id: string): Promise<{ name: string; value: string }[]> {
    return this.request('GET', `/workspacebuilds/${encodeURIComponent(id)}/parameters`);
  }

  /** Where a workspace's latest build spent its time: provisioner stages, agent connection and scripts. */
  workspaceTimings(id: string): Promise<WorkspaceBuildTimings> {
    return this.request('GET', `/workspaces/${encodeURIComponent(id)}/timings`);
  }

  /** Where one build spent its time, as {@link workspaceTimings} shows the latest. */
  workspaceBuildTimings(id: string): Promise<WorkspaceBuildTimings> {
    return this.request('GET', `/workspacebuilds/${encodeURIComponent(id)}/timings`);
  }

  favoriteWorkspace(id: string, favorite = true): Promise<void> {
    return this.request(favorite ? 'PUT' : 'DELETE', `/workspaces/${encodeURIComponent(id)}/favorite`);
  }

  /** Records use of a workspace (which also moves its shutdown deadline out). */
  reportWorkspaceUsage(id: string, body: { readonly agent_id?: string; readonly app_name?: string } = {}): Promise<void> {
    return this.request('POST', `/workspaces/${encodeURIComponent(id)}/usage`, { body });
  }

  portShares(workspaceId: string): Promise<{ shares: PortShare[] }> {
    return this.request('GET', `/workspaces/${encodeURIComponent(workspaceId)}/port-share`);
  }

  sharePort(
    workspaceId: string,
    share: { readonly agent_name: string; readonly port: number; readonly share_level: string; readonly protocol?: string },
  ): Promise<PortShare> {
    return this.request('POST', `/workspaces/${encodeURIComponent(workspaceId)}/port-share`, { body: share });
  }

  unsharePort(workspaceId: string, share: { readonly agent_name: string; readonly port: number }): Promise<void> {
    return this.request('DELETE', `/workspaces/${encodeURIComponent(workspaceId)}/port-share`, { body: share });
  }

  /** Whether starts move the workspace to its template's active version (`always`) or keep its version (`never`). */
  updateWorkspaceAutomaticUpdates(id: string, policy: 'always' | 'never'): Promise<void> {
    return this.request('PUT', `/workspaces/${encodeURIComponent(id)}/autoupdates`, { body: { automatic_updates: policy } });
  }

  /** Sets the autostart schedule (`CRON_TZ=Europe/London 30 9 * * 1-5`); null turns autostart off. */
  updateWorkspaceAutostart(id: string, schedule: string | null): Promise<void> {
    return this.request('PUT', `/workspaces/${encodeURIComponent(id)}/autostart`, { body: { schedule } });
  }

  /** Sets how long the workspace runs after each start; null stops it only by hand. */
  updateWorkspaceTtl(id: string, ttlMs: number | null): Promise<void> {
    return this.request('PUT', `/workspaces/${encodeURIComponent(id)}/ttl`, { body: { ttl_ms: ttlMs } });
  }

  /** Moves the running build's deadline to `deadline` (an ISO time at least 30 minutes ahead). */
  extendWorkspace(id: string, deadline: string): Promise<Response> {
    return this.request('PUT', `/workspaces/${encodeURIComponent(id)}/extend`, { body: { deadline } });
  }

  /** Marks a workspace dormant or wakes it; undefined when it already was (304). */
  setWorkspaceDormant(id: string, dormant: boolean): Promise<Workspace | undefined> {
    return this.request('PUT', `/workspaces/${encodeURIComponent(id)}/dormant`, { body: { dormant } });
  }

  /** Whether the next autostart would fail because the active version needs new parameter values. */
  resolveAutostart(id: string): Promise<{ parameter_mismatch: boolean }> {
    return this.request('GET', `/workspaces/${encodeURIComponent(id)}/resolve-autostart`);
  }

  /**
   * Watches a workspace over server-sent events: `onWorkspace` gets it on connect and after every
   * change, until `signal` aborts.
   */
  async watchWorkspace(id: string, onWorkspace: (workspace: Workspace) => void, signal: AbortSignal): Promise<void> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.#token) headers[SESSION_TOKEN_HEADER] = this.#token;
    const url = new URL(`${this.url}/api/v2/workspaces/${encodeURIComponent(id)}/watch`);
    let response: import('node:http').IncomingMessage;
    try {
      response = await openHttpRequest(url, { method: 'GET', headers, signal });
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    }
    if (response.statusCode !== 200) {
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      throw new ApiError(
        response.statusCode ?? 0,
        'GET',
        url.toString(),
        parseErrorBody(Buffer.concat(chunks).toString('utf8'), response.statusCode ?? 0),
      );
    }
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (event === 'data' && data) onWorkspace(JSON.parse(data) as Workspace);
        }
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    }
  }

  // Provisioners

  provisionerJobs(
    organization: string,
    query: { readonly limit?: number; readonly ids?: string; readonly status?: string; readonly tags?: string } = {},
  ): Promise<ProvisionerJob[]> {
    return this.request('GET', `/organizations/${encodeURIComponent(organization)}/provisionerjobs`, { query });
  }

  provisionerJob(organization: string, id: string): Promise<ProvisionerJob> {
    return this.request('GET', `/organizations/${encodeURIComponent(organization)}/provisionerjobs/${encodeURIComponent(id)}`);
  }

  /**
   * Cancels an organization's provisioner job. The API has no cancel route of its own for jobs: a
   * job is canceled through what it builds (its template version, workspace build or dry run),
   * whose route applies that resource's rules (who may cancel, whether it can still be canceled).
   */
  async cancelProvisionerJob(organization: string, id: string): Promise<Response> {
    const job = await this.provisionerJob(organization, id);
    const { template_version_id: versionId, workspace_build_id: buildId } = job.input;
    if (job.type === 'workspace_build' && buildId) return this.cancelWorkspaceBuild(buildId);
    if (job.type === 'template_version_import' && versionId) return this.cancelTemplateVersion(versionId);
    if (job.type === 'template_version_dry_run' && versionId) return this.cancelDryRun(versionId, job.id);
    throw new Error(`provisioner job ${job.id} (${job.type}) does not say what it builds, so it cannot be canceled`);
  }

  provisionerDaemons(organization: string): Promise<ProvisionerDaemon[]> {
    return this.request('GET', `/organizations/${encodeURIComponent(organization)}/provisionerdaemons`);
  }

  createProvisionerKey(organization: string, request: CreateProvisionerKeyRequest): Promise<CreateProvisionerKeyResponse> {
    return this.request('POST', `/organizations/${encodeURIComponent(organization)}/provisionerkeys`, { body: request });
  }

  provisionerKeys(organization: string): Promise<ProvisionerKey[]> {
    return this.request('GET', `/organizations/${encodeURIComponent(organization)}/provisionerkeys`);
  }

  deleteProvisionerKey(organization: string, name: string): Promise<void> {
    return this.request('DELETE', `/organizations/${encodeURIComponent(organization)}/provisionerkeys/${encodeURIComponent(name)}`);
  }

  /**
   * Opens a WebSocket on `path` with this client's token and resolves once it is open, paused so
   * the caller attaches its listeners first; a refusal is an ApiError with the daemon's answer.
   */
  async openSocket(path: string, query: Query = {}): Promise<import('ws').WebSocket> {
    const { WebSocket } = await import('ws');
    const url = new URL(`${this.url}/api/v2${path}`);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = {};
    if (this.#token) headers[SESSION_TOKEN_HEADER] = this.#token;
    const socket = new WebSocket(url, { headers, perMessageDeflate: false });
    return new Promise((resolve, reject) => {
      socket.once('open', () => {
        socket.pause();
        resolve(socket);
      });
      socket.once('unexpected-response', (_request, response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        response.on('end', () =>
          reject(new ApiError(response.statusCode ?? 0, 'GET', url.toString(), parseErrorBody(body, response.statusCode ?? 0))),
        );
      });
      socket.once('error', reject);
    });
  }

  /**
   * Opens a WebSocket on `path`, hands each text frame to `onMessage`, and resolves on a normal
   * close, or once `signal` aborts (the socket is then closed from this side).
   */
  async #follow(path: string, query: Query, onMessage: (text: string) => void, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return;
    const socket = await this.openSocket(path, query);
    const stop = (): void => socket.close(1000, 'client done');
    if (signal?.aborted) stop();
    signal?.addEventListener('abort', stop, { once: true });
    await new Promise<void>((resolve, reject) => {
      socket.on('message', (data) => {
        try {
          onMessage(data.toString());
        } catch (error) {
          socket.close();
          reject(error);
        }
      });
      socket.on('error', reject);
      socket.on('close', (code, reason) => {
        if (code === 1000 || code === 1005 || signal?.aborted) resolve();
        else reject(new Error(`the stream closed unexpectedly (${code} ${reason.toString()})`));
      });
      socket.resume();
    }).finally(() => signal?.removeEventListener('abort', stop));
  }

  // Users

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

  // API tokens

  /** A new session key for `user`, with the lifetime of a password sign-in. */
  createSessionKey(user = 'me'): Promise<GenerateApiKeyResponse> {
    return this.request('POST', `/users/${encodeURIComponent(user)}/keys`);
  }

  createToken(request: CreateTokenRequest = {}, user = 'me'): Promise<GenerateApiKeyResponse> {
    return this.request('POST', `/users/${encodeURIComponent(user)}/keys/tokens`, { body: request });
  }

  listTokens(options: { readonly user?: string; readonly includeAll?: boolean } = {}): Promise<ApiKeyWithOwner[]> {
    return this.request('GET', `/users/${encodeURIComponent(options.user ?? 'me')}/keys/tokens`, {
      query: { include_all: options.includeAll || undefined },
    });
  }

  tokenByName(name: string, user = 'me'): Promise<ApiKey> {
    return this.request('GET', `/users/${encodeURIComponent(user)}/keys/tokens/${encodeURIComponent(name)}`);
  }

  apiKey(id: string, user = 'me'): Promise<ApiKey> {
    return this.request('GET', `/users/${encodeURIComponent(user)}/keys/${encodeURIComponent(id)}`);
  }

  deleteApiKey(id: string, user = 'me'): Promise<void> {
    return this.request('DELETE', `/users/${encodeURIComponent(user)}/keys/${encodeURIComponent(id)}`);
  }

  tokenConfig(user = 'me'): Promise<TokenConfig> {
    return this.request('GET', `/users/${encodeURIComponent(user)}/keys/tokens/tokenconfig`);
  }

  // Git SSH keys

  /** The public key the user's workspaces authenticate git over SSH with. */
  gitSshKey(user = 'me'): Promise<GitSshKey> {
    return this.request('GET', `/users/${encodeURIComponent(user)}/gitsshkey`);
  }

  /** Replaces the user's git SSH key pair with a new one; services that knew the old key must learn the new. */
  regenerateGitSshKey(user = 'me'): Promise<GitSshKey> {
    return this.request('PUT', `/users/${encodeURIComponent(user)}/gitsshkey`);
  }

  // Workspace agents

  workspaceAgent(id: string): Promise<WorkspaceAgent> {
    return this.request('GET', `/workspaceagents/${encodeURIComponent(id)}`);
  }

  workspaceAgentLogs(id: string, range: { readonly after?: number; readonly before?: number } = {}): Promise<WorkspaceAgentLog[]> {
    return this.request('GET', `/workspaceagents/${encodeURIComponent(id)}/logs`, { query: range });
  }

  /** Follows an agent's logs until the agent shuts down, its build is replaced, or `signal` aborts. */
  followWorkspaceAgentLogs(id: string, onLog: (log: WorkspaceAgentLog) => void, after?: number, signal?: AbortSignal): Promise<void> {
    return this.#follow(
      `/workspaceagents/${encodeURIComponent(id)}/logs`,
      { follow: true, ...(after === undefined ? {} : { after }) },
      (text) => onLog(JSON.parse(text) as WorkspaceAgentLog),
      signal,
    );
  }

  /** For an agent (a client holding its token): stores a batch of its logs. */
  patchAgentLogs(request: PatchAgentLogsRequest): Promise<Response> {
    return this.request('PATCH', '/workspaceagents/me/logs', { body: request });
  }

  /**
   * For an agent: the workspace owner's token for an external auth provider, named by `id` or found
   * by `match`ing a git remote URL; with `listen`, waits until a new token is issued.
   */
  agentExternalAuth(
    query: Omit<AgentExternalAuthQuery, 'url' | 'listen'> & { readonly listen?: boolean },
  ): Promise<AgentExternalAuthResponse> {
    return this.request('GET', '/workspaceagents/me/external-auth', {
      query: { match: query.match, id: query.id, listen: query.listen ? 'true' : undefined },
    });
  }

  /** For an agent: declares (or renames) one of its log sources. */
  postAgentLogSource(request: PostLogSourceRequest): Promise<WorkspaceAgentLogSource> {
    return this.request('POST', '/workspaceagents/me/log-source', { body: request });
  }
}

function parseErrorBody(text: string, status: number): Response {
  try {
    const parsed = JSON.parse(text) as Partial<Response>;
    if (typeof parsed.message === 'string') return parsed as Response;
  } catch {
    // Not JSON: a proxy or a plain-text answer. Keep the text as the message.
  }
  return { message: text.trim() || `HTTP ${status}` };
}
