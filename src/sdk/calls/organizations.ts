import { ClientCore } from '../client-core.js';
import type {
  Response,
  AssignableRole,
  CreateOrganizationRequest,
  Organization,
  OrganizationMember,
  OrganizationMemberWithUser,
  PaginatedMembers,
  CustomRoleRequest,
  RoleObject,
  UpdateOrganizationRequest,
} from '../wire/index.js';

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

/**
 * Organizations, their members and roles, and authorization checks.
 * Abstract: its methods run on a CoveClient, which installs them on its prototype (src/sdk/client.ts).
 */
export abstract class OrganizationsCalls extends ClientCore {
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

  /** Answers the role as saved, as the reference does. */
  createCustomRole(organization: string, role: CustomRoleRequest): Promise<RoleObject> {
    return this.request('POST', `/organizations/${encodeURIComponent(organization)}/members/roles`, { body: role });
  }

  /** Answers the role as saved, as the reference does. */
  updateCustomRole(organization: string, role: CustomRoleRequest): Promise<RoleObject> {
    return this.request('PUT', `/organizations/${encodeURIComponent(organization)}/members/roles`, { body: role });
  }

  deleteCustomRole(organization: string, name: string): Promise<RoleObject[]> {
    return this.request('DELETE', `/organizations/${encodeURIComponent(organization)}/members/roles/${encodeURIComponent(name)}`);
  }
}
