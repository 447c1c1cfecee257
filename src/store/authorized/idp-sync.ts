import { StoreFamily } from './store-family.js';
import { newId } from '../../lib/random.js';
import { orgScoped, siteObject, userObject } from '../../rbac/index.js';
import { parseStringArray } from '../json-column.js';
import * as idpSync from '../queries/idp-sync.js';
import * as users from '../queries/users.js';

/** What one sync changed, by group name. */
export interface SyncChanges {
  readonly groupsAdded: readonly string[];
  readonly groupsRemoved: readonly string[];
  readonly groupsCreated: readonly string[];
  /** The names the claims asked for that name no group (and were not created). */
  readonly groupsMissing: readonly string[];
  readonly siteRolesChanged: boolean;
}

/** What a sync is asked to apply: the claims to keep, and what group and role sync computed (each when on). */
export interface SyncRequest {
  readonly loginType: 'oidc' | 'github';
  readonly claims: Readonly<Record<string, unknown>>;
  readonly organizationId: string;
  readonly groups?: { readonly names: readonly string[]; readonly autoCreate: boolean };
  readonly siteRoles?: readonly string[];
}

/** What the sync preview reads of a user: their last claims, and the organization's groups with theirs. */
export interface SyncPreviewInputs {
  readonly claims: Record<string, unknown> | undefined;
  readonly claimsAt: string | undefined;
  readonly groups: readonly idpSync.SyncGroupRow[];
  readonly memberGroupIds: readonly string[];
}

/** Group and role sync from a sign-in provider's claims, and what it reads to explain itself. */
export class IdpSyncStore extends StoreFamily {
  /**
   * Stores the claims of a sign-in on the user's link, makes the user a member of exactly the named
   * groups of the organization (creating missing ones when asked), and sets their site roles, in one
   * transaction. Needs `update` on the user; with groups, `read` and `update` on the organization's
   * groups and `create` for groups it creates; with roles that change, `assign`/`unassign` of site roles.
   */
  async apply(user: users.UserRow, request: SyncRequest): Promise<SyncChanges> {
    this.require('update', userObject(user.id));
    const groupObject = orgScoped('group', request.organizationId);
    if (request.groups) {
      this.require('read', groupObject);
      this.require('update', groupObject);
    }
    const now = this.store.nowIso();
    const changes = await this.db.transaction().execute(async (trx) => {
      await idpSync.setLinkClaims(trx, user.id, request.loginType, JSON.stringify(request.claims), now);
      let added: string[] = [];
      let removed: string[] = [];
      const created: string[] = [];
      const missing: string[] = [];
      if (request.groups) {
        let groups = await idpSync.listOrganizationGroups(trx, request.organizationId);
        // The Everyone group's members are the organization's: never stored, never synced.
        const wanted = request.groups.names.filter((name) => !groups.some((g) => g.name === name && g.id === request.organizationId));
        const absent = wanted.filter((name) => !groups.some((g) => g.name === name));
        if (absent.length > 0 && request.groups.autoCreate) {
          this.require('create', groupObject);
          await idpSync.insertMissingGroups(
            trx,
            request.organizationId,
            absent.map((name) => ({ id: newId(), name })),
            now,
          );
          created.push(...absent);
          groups = await idpSync.listOrganizationGroups(trx, request.organizationId);
        } else {
          missing.push(...absent);
        }
        const byName = new Map(groups.map((g) => [g.name, g]));
        const wantedIds = new Set(wanted.flatMap((name) => byName.get(name)?.id ?? []));
        const current = new Set(await idpSync.memberGroupIdsInOrganization(trx, user.id, request.organizationId));
        const add = [...wantedIds].filter((id) => !current.has(id));
        const remove = [...current].filter((id) => !wantedIds.has(id));
        await idpSync.changeMemberships(trx, user.id, { add, remove });
        const nameOf = (id: string) => groups.find((g) => g.id === id)?.name ?? id;
        added = add.map(nameOf);
        removed = remove.map(nameOf);
      }
      let siteRolesChanged = false;
      if (request.siteRoles) {
        const held = parseStringArray(user.rbac_roles);
        const wanted = [...new Set(request.siteRoles)].sort();
        const gained = wanted.some((role) => !held.includes(role));
        const lost = held.some((role) => !wanted.includes(role));
        if (gained) this.require('assign', siteObject('assign_role'));
        if (lost) this.require('unassign', siteObject('assign_role'));
        if (gained || lost) {
          await this.requireOutranks(user);
          await users.updateUser(trx, user.id, { rbac_roles: JSON.stringify(wanted), updated_at: now });
          siteRolesChanged = true;
        }
      }
      return { groupsAdded: added, groupsRemoved: removed, groupsCreated: created, groupsMissing: missing, siteRolesChanged };
    });
    // A cached session carries the user's groups and roles; the next request reads the new ones.
    if (changes.groupsAdded.length > 0 || changes.groupsRemoved.length > 0 || changes.siteRolesChanged) {
      await this.store.invalidateSessions({ userId: user.id });
    }
    return changes;
  }

  /** The claims of the user's last sign-in through a provider, or undefined; needs `read_personal` on the user. */
  async claims(
    userId: string,
    loginType: 'oidc' | 'github',
  ): Promise<{ readonly claims: Record<string, unknown>; readonly at: string } | undefined> {
    this.require('read_personal', userObject(userId));
    const row = await idpSync.getLinkClaims(this.db, userId, loginType);
    if (!row) return undefined;
    return { claims: parseClaims(row.claims), at: row.updated_at };
  }

  /**
   * What the sync preview of a user shows: their last OIDC claims, the organization's groups and
   * which of them the user is in. Needs `read` on the IdP sync settings, `read_personal` on the user
   * and `read` on the organization's groups.
   */
  async previewInputs(userId: string, organizationId: string): Promise<SyncPreviewInputs> {
    this.require('read', siteObject('idpsync_settings'));
    this.require('read_personal', userObject(userId));
    this.require('read', orgScoped('group', organizationId));
    const link = await idpSync.getLinkClaims(this.db, userId, 'oidc');
    return {
      claims: link ? parseClaims(link.claims) : undefined,
      claimsAt: link?.updated_at,
      groups: await idpSync.listOrganizationGroups(this.db, organizationId),
      memberGroupIds: await idpSync.memberGroupIdsInOrganization(this.db, userId, organizationId),
    };
  }
}

function parseClaims(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
