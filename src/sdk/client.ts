import { ClientCore, type ClientOptions } from './client-core.js';
import { ApiKeysCalls } from './calls/api-keys.js';
import { AuditCalls } from './calls/audit.js';
import { ExternalAuthCalls } from './calls/external-auth.js';
import { FilesCalls } from './calls/files.js';
import { GeneralCalls } from './calls/general.js';
import { GroupsCalls } from './calls/groups.js';
import { HealthCalls } from './calls/health.js';
import { IdpSyncCalls } from './calls/idp-sync.js';
import { InsightsCalls } from './calls/insights.js';
import { LicensesCalls } from './calls/licenses.js';
import { NotificationsCalls } from './calls/notifications.js';
import { OrganizationsCalls } from './calls/organizations.js';
import { ProvisionersCalls } from './calls/provisioners.js';
import { TemplateVersionsCalls } from './calls/template-versions.js';
import { TemplatesCalls } from './calls/templates.js';
import { TemplateAclCalls } from './calls/template-acl.js';
import { UsersCalls } from './calls/users.js';
import { WorkspaceAgentsCalls } from './calls/workspace-agents.js';
import { WorkspaceBuildsCalls } from './calls/workspace-builds.js';
import { WorkspacesCalls } from './calls/workspaces.js';
import { WorkspaceQuotaCalls } from './calls/workspace-quota.js';

export { SESSION_TOKEN_HEADER, type ClientOptions } from './client-core.js';
export type { InsightsRange } from './calls/insights.js';
export type { AuthorizationCheck } from './calls/organizations.js';
export type { GroupFilter } from './calls/groups.js';

/** Every family of calls, each written once in src/sdk/calls/ and installed on CoveClient below. */
const CALL_FAMILIES = [
  ApiKeysCalls,
  FilesCalls,
  GeneralCalls,
  HealthCalls,
  IdpSyncCalls,
  InsightsCalls,
  LicensesCalls,
  OrganizationsCalls,
  ProvisionersCalls,
  TemplateVersionsCalls,
  TemplatesCalls,
  TemplateAclCalls,
  UsersCalls,
  WorkspaceAgentsCalls,
  WorkspaceBuildsCalls,
  WorkspacesCalls,
  GroupsCalls,
  WorkspaceQuotaCalls,
  ExternalAuthCalls,
  AuditCalls,
  NotificationsCalls,
] as const;

/**
 * The calls of every family, typed on CoveClient through declaration merging; the methods
 * themselves are installed on the prototype once, below the class.
 */
export interface CoveClient
  extends
    ApiKeysCalls,
    FilesCalls,
    GeneralCalls,
    HealthCalls,
    IdpSyncCalls,
    InsightsCalls,
    LicensesCalls,
    OrganizationsCalls,
    ProvisionersCalls,
    TemplateVersionsCalls,
    TemplatesCalls,
    TemplateAclCalls,
    UsersCalls,
    WorkspaceAgentsCalls,
    WorkspaceBuildsCalls,
    WorkspacesCalls,
    GroupsCalls,
    WorkspaceQuotaCalls,
    ExternalAuthCalls,
    AuditCalls,
    NotificationsCalls {}

/**
 * A typed client of `/api/v2`. The CLI and the tests use it alike; every failure is an ApiError
 * carrying the spec's error body.
 */
export class CoveClient extends ClientCore {
  readonly #onServerVersion: ((version: string) => void) | undefined;

  constructor(options: ClientOptions) {
    super(options);
    this.#onServerVersion = options.onServerVersion;
  }

  /** A client for the same deployment with another token. */
  withToken(token: string | undefined): CoveClient {
    return new CoveClient({ url: this.url, token, onServerVersion: this.#onServerVersion, timeoutMs: this.timeoutMs });
  }
}

// Installs each family's methods as CoveClient's own, non-enumerable like a class's methods. A name
// two families define would make one silently replace the other, so it stops the module instead.
for (const family of CALL_FAMILIES) {
  for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(family.prototype))) {
    if (name === 'constructor') continue;
    if (Object.hasOwn(CoveClient.prototype, name)) throw new Error(`CoveClient: two families of calls define ${name}`);
    Object.defineProperty(CoveClient.prototype, name, descriptor);
  }
}
