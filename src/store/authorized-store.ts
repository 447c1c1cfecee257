import type { Kysely } from 'kysely';
import { siteObject, type Action, type RbacObject, type ResourceType, type Subject } from '../rbac/index.js';
import { DeploymentStore } from './authorized/deployment.js';
import { ExternalAuthStore } from './authorized/external-auth.js';
import { FileStore } from './authorized/files.js';
import { GroupStore } from './authorized/groups.js';
import { IdpSyncStore } from './authorized/idp-sync.js';
import { InsightStore } from './authorized/insights.js';
import { LicenseStore } from './authorized/licenses.js';
import { NotificationStore } from './authorized/notifications.js';
import { ConnectionLogStore } from './authorized/connection-logs.js';
import { AppearanceStore } from './authorized/appearance.js';
import { AuditLogStore } from './authorized/audit-logs.js';
import { UserSettingsStore } from './authorized/user-settings.js';
import { WorkspaceSharingStore } from './authorized/workspace-sharing.js';
import { MemberStore } from './authorized/members.js';
import { OrganizationStore } from './authorized/organizations.js';
import { PortShareStore } from './authorized/port-shares.js';
import { ProvisionerDaemonStore } from './authorized/provisioner-daemons.js';
import { ProvisionerJobStore } from './authorized/provisioner-jobs.js';
import { ProvisionerKeyStore } from './authorized/provisioner-keys.js';
import { RoleStore } from './authorized/roles.js';
import { SessionStore } from './authorized/sessions.js';
import { SignInStore } from './authorized/sign-in.js';
import { StoreScope } from './authorized/store-family.js';
import { TemplateVersionStore } from './authorized/template-versions.js';
import { TemplateStore } from './authorized/templates.js';
import { TemplateAclStore } from './authorized/template-acl.js';
import { TokenStore } from './authorized/tokens.js';
import { UserStore } from './authorized/users.js';
import { WorkspaceAgentStore } from './authorized/workspace-agents.js';
import { WorkspaceBuildStore } from './authorized/workspace-builds.js';
import { WorkspaceStore } from './authorized/workspaces.js';
import { WorkspaceQuotaStore } from './authorized/workspace-quota.js';
import type { UserRow } from './queries/users.js';
import type { Database } from './schema.js';
import type { StoreServices } from './store-services.js';
import type { AuditRequest } from './audit/audit-request.js';

export { groupRbac, templateRbac, workspaceRbac } from './rbac-objects.js';
export type { MemberWithUser } from './authorized/members.js';
export type { GroupChanges, GroupListFilter, GroupMembers } from './authorized/groups.js';
export type { JobLogReader } from './authorized/provisioner-jobs.js';
export type { VersionWithJob } from './authorized/template-versions.js';
export type { AclGroupRow, TemplateAclRows } from './authorized/template-acl.js';
export type { ExternalAuthLinkRecord, ExternalAuthLinkStatus, ExternalAuthTokens, FreshenOutcome } from './authorized/external-auth.js';
export type { AuditChange, AuditRequest } from './audit/audit-request.js';
export type { AuditLogPageRows } from './authorized/audit-logs.js';
export type { TokenWithOwner } from './authorized/tokens.js';
export type { NotificationRecipient } from './authorized/notifications.js';
export type { InboxNotificationRow, NotificationMessageRow } from './queries/notifications.js';
export type { BuildGrant } from './authorized/workspace-builds.js';
export type { WorkspaceCreationGrant } from './authorized/workspaces.js';
export type { QuotaPlan, QuotaStanding } from './authorized/workspace-quota.js';

/**
 * The store as one subject sees it, one family of methods per resource (`store.workspaces.get`,
 * `store.templates.list`, ...). Every method that reads or writes a row checks the row's RBAC
 * object first (or filters the list in SQL), so route handlers never decide who may see what.
 * A refused read throws NotAuthorizedError, which the API answers exactly like NotFoundError.
 * Families are made on first use: most stores live for one request and use two or three.
 */
export class AuthorizedStore {
  readonly #services: StoreServices;
  readonly #scope: StoreScope;
  #users: UserStore | undefined;
  #signIn: SignInStore | undefined;
  #organizations: OrganizationStore | undefined;
  #members: MemberStore | undefined;
  #roles: RoleStore | undefined;
  #deployment: DeploymentStore | undefined;
  #sessions: SessionStore | undefined;
  #tokens: TokenStore | undefined;
  #files: FileStore | undefined;
  #licenses: LicenseStore | undefined;
  #connectionLogs: ConnectionLogStore | undefined;
  #appearance: AppearanceStore | undefined;
  #userSettings: UserSettingsStore | undefined;
  #workspaceSharing: WorkspaceSharingStore | undefined;
  #insights: InsightStore | undefined;
  #templates: TemplateStore | undefined;
  #templateVersions: TemplateVersionStore | undefined;
  #templateAcl: TemplateAclStore | undefined;
  #provisionerJobs: ProvisionerJobStore | undefined;
  #provisionerKeys: ProvisionerKeyStore | undefined;
  #provisionerDaemons: ProvisionerDaemonStore | undefined;
  #workspaces: WorkspaceStore | undefined;
  #workspaceBuilds: WorkspaceBuildStore | undefined;
  #portShares: PortShareStore | undefined;
  #workspaceAgents: WorkspaceAgentStore | undefined;
  #groups: GroupStore | undefined;
  #workspaceQuota: WorkspaceQuotaStore | undefined;
  #idpSync: IdpSyncStore | undefined;
  #externalAuth: ExternalAuthStore | undefined;
  #auditLogs: AuditLogStore | undefined;
  #notifications: NotificationStore | undefined;

  constructor(store: StoreServices, subject: Subject, db: Kysely<Database> = store.db, auditRequest?: AuditRequest) {
    this.#services = store;
    this.#scope = new StoreScope(store, subject, db, auditRequest);
  }

  /** The request this store serves, for the audit entries of its changes; absent for system work. */
  get auditRequest(): AuditRequest | undefined {
    return this.#scope.auditRequest;
  }

  get subject(): Subject {
    return this.#scope.subject;
  }

  /**
   * The same subject's store, for work that finishes what is already under way (a job's
   * completion, a watch re-read): on PostgreSQL its statements get the next free connection before
   * others waiting for one. Grants made by one view are not the other's.
   */
  urgent(): AuthorizedStore {
    return new AuthorizedStore(this.#services, this.subject, this.#services.urgentDb, this.#scope.auditRequest);
  }

  /** Whether the subject may perform `action` on `object`; for checks a route reports itself. */
  can(action: Action, object: RbacObject): boolean {
    return this.#scope.can(action, object);
  }

  /** Throws NotAuthorizedError unless the subject may perform `action` on a site-wide resource type. */
  authorizeSite(action: Action, type: ResourceType): void {
    this.#scope.require(action, siteObject(type));
  }

  /** Throws OutrankedError unless the subject could assign every role the user holds; see StoreScope.requireOutranks. */
  requireOutranks(user: UserRow | string, organizationId?: string): Promise<void> {
    return this.#scope.requireOutranks(user, organizationId);
  }

  get users(): UserStore {
    return (this.#users ??= new UserStore(this.#scope));
  }

  get signIn(): SignInStore {
    return (this.#signIn ??= new SignInStore(this.#scope));
  }

  get organizations(): OrganizationStore {
    return (this.#organizations ??= new OrganizationStore(this.#scope));
  }

  get members(): MemberStore {
    return (this.#members ??= new MemberStore(this.#scope));
  }

  get roles(): RoleStore {
    return (this.#roles ??= new RoleStore(this.#scope));
  }

  get deployment(): DeploymentStore {
    return (this.#deployment ??= new DeploymentStore(this.#scope));
  }

  get sessions(): SessionStore {
    return (this.#sessions ??= new SessionStore(this.#scope));
  }

  get tokens(): TokenStore {
    return (this.#tokens ??= new TokenStore(this.#scope, this.users));
  }

  get files(): FileStore {
    return (this.#files ??= new FileStore(this.#scope));
  }

  get licenses(): LicenseStore {
    return (this.#licenses ??= new LicenseStore(this.#scope));
  }

  get appearance(): AppearanceStore {
    return (this.#appearance ??= new AppearanceStore(this.#scope));
  }

  get userSettings(): UserSettingsStore {
    return (this.#userSettings ??= new UserSettingsStore(this.#scope));
  }

  get workspaceSharing(): WorkspaceSharingStore {
    return (this.#workspaceSharing ??= new WorkspaceSharingStore(this.#scope));
  }

  get insights(): InsightStore {
    return (this.#insights ??= new InsightStore(this.#scope, this.templates));
  }

  get templates(): TemplateStore {
    return (this.#templates ??= new TemplateStore(this.#scope));
  }

  get templateVersions(): TemplateVersionStore {
    return (this.#templateVersions ??= new TemplateVersionStore(this.#scope));
  }

  get templateAcl(): TemplateAclStore {
    return (this.#templateAcl ??= new TemplateAclStore(this.#scope));
  }

  get provisionerJobs(): ProvisionerJobStore {
    return (this.#provisionerJobs ??= new ProvisionerJobStore(this.#scope));
  }

  get provisionerKeys(): ProvisionerKeyStore {
    return (this.#provisionerKeys ??= new ProvisionerKeyStore(this.#scope));
  }

  get provisionerDaemons(): ProvisionerDaemonStore {
    return (this.#provisionerDaemons ??= new ProvisionerDaemonStore(this.#scope));
  }

  get workspaces(): WorkspaceStore {
    return (this.#workspaces ??= new WorkspaceStore(this.#scope));
  }

  get workspaceBuilds(): WorkspaceBuildStore {
    return (this.#workspaceBuilds ??= new WorkspaceBuildStore(this.#scope));
  }

  get portShares(): PortShareStore {
    return (this.#portShares ??= new PortShareStore(this.#scope));
  }

  get workspaceAgents(): WorkspaceAgentStore {
    return (this.#workspaceAgents ??= new WorkspaceAgentStore(this.#scope));
  }

  get groups(): GroupStore {
    return (this.#groups ??= new GroupStore(this.#scope));
  }

  get workspaceQuota(): WorkspaceQuotaStore {
    return (this.#workspaceQuota ??= new WorkspaceQuotaStore(this.#scope));
  }

  get idpSync(): IdpSyncStore {
    return (this.#idpSync ??= new IdpSyncStore(this.#scope));
  }

  get externalAuth(): ExternalAuthStore {
    return (this.#externalAuth ??= new ExternalAuthStore(this.#scope));
  }

  get auditLogs(): AuditLogStore {
    return (this.#auditLogs ??= new AuditLogStore(this.#scope));
  }

  get notifications(): NotificationStore {
    return (this.#notifications ??= new NotificationStore(this.#scope));
  }

  get connectionLogs(): ConnectionLogStore {
    return (this.#connectionLogs ??= new ConnectionLogStore(this.#scope));
  }
}
