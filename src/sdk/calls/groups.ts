import { ClientCore } from '../client-core.js';
import type { CreateGroupRequest, Group, PatchGroupRequest, Response } from '../wire/index.js';

/** Filters of `GET /groups`: an organization and a member by id or name, and group ids. */
export interface GroupFilter {
  readonly organization?: string;
  readonly hasMember?: string;
  readonly groupIds?: readonly string[];
}

/**
 * Groups of organizations and their members.
 * Abstract: its methods run on a CoveClient, which installs them on its prototype (src/sdk/client.ts).
 */
export abstract class GroupsCalls extends ClientCore {
  groups(filter: GroupFilter = {}): Promise<Group[]> {
    const query = new URLSearchParams();
    if (filter.organization) query.set('organization', filter.organization);
    if (filter.hasMember) query.set('has_member', filter.hasMember);
    if (filter.groupIds && filter.groupIds.length > 0) query.set('group_ids', filter.groupIds.join(','));
    const search = query.toString();
    return this.request('GET', `/groups${search ? `?${search}` : ''}`);
  }

  organizationGroups(organization: string): Promise<Group[]> {
    return this.request('GET', `/organizations/${encodeURIComponent(organization)}/groups`);
  }

  organizationGroup(organization: string, name: string): Promise<Group> {
    return this.request('GET', `/organizations/${encodeURIComponent(organization)}/groups/${encodeURIComponent(name)}`);
  }

  group(id: string): Promise<Group> {
    return this.request('GET', `/groups/${encodeURIComponent(id)}`);
  }

  createGroup(organization: string, request: CreateGroupRequest): Promise<Group> {
    return this.request('POST', `/organizations/${encodeURIComponent(organization)}/groups`, { body: request });
  }

  patchGroup(id: string, request: PatchGroupRequest): Promise<Group> {
    return this.request('PATCH', `/groups/${encodeURIComponent(id)}`, { body: request });
  }

  deleteGroup(id: string): Promise<Response> {
    return this.request('DELETE', `/groups/${encodeURIComponent(id)}`);
  }
}
