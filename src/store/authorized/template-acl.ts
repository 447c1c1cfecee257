import { StoreFamily } from './store-family.js';
import { templateRbac } from '../rbac-objects.js';
import { parseJson } from '../json-column.js';
import type { TemplateRow } from '../queries/templates.js';
import type { UserRow } from '../queries/users.js';
import * as acl from '../queries/template-acl.js';
import { listAvailableUserRows } from '../queries/available-users.js';

export type { AclGroupRow } from '../queries/template-acl.js';

/** The users and groups a template's ACL names, as read for an answer. */
export interface TemplateAclRows {
  /** Each entry's actions, by user id and by group id, as stored. */
  readonly userAcl: Readonly<Record<string, readonly string[]>>;
  readonly groupAcl: Readonly<Record<string, readonly string[]>>;
  readonly users: readonly UserRow[];
  readonly organizationIds: ReadonlyMap<string, readonly string[]>;
  readonly groups: readonly acl.AclGroupRow[];
}

/**
 * Template permissions: who a template's ACL names and with which actions. Reading them, changing
 * them and listing whom one could add all need `update` on the template (template admins,
 * organization admins and users the ACL makes admins), as in the reference: the ACL names users
 * and lists its groups' members with their emails (the Everyone group's are the whole
 * organization's), which a user of the template has no call to read. Those named are read
 * whatever the subject's own rights on them, as the ACL is the template's.
 */
export class TemplateAclStore extends StoreFamily {
  /** The template's ACL entries with their users and groups; entries naming what no longer exists are left out. */
  async entries(template: TemplateRow): Promise<TemplateAclRows> {
    this.require('read', templateRbac(template));
    this.require('update', templateRbac(template));
    const userAcl = parseJson<Record<string, string[]>>(template.user_acl, {});
    const groupAcl = parseJson<Record<string, string[]>>(template.group_acl, {});
    const [{ users, organizationIds }, groups] = await Promise.all([
      acl.aclUsers(this.db, Object.keys(userAcl)),
      acl.aclGroups(this.db, template.organization_id, Object.keys(groupAcl)),
    ]);
    return { userAcl, groupAcl, users, organizationIds, groups };
  }

  /**
   * Whom the template's ACL could name: a page of the organization's active members matching the
   * search, and its groups.
   */
  async available(
    template: TemplateRow,
    users: { readonly search: string; readonly limit: number; readonly offset: number },
  ): Promise<{ readonly users: UserRow[]; readonly groups: acl.AclGroupRow[] }> {
    this.require('update', templateRbac(template));
    const [userRows, groups] = await Promise.all([
      listAvailableUserRows(this.db, this.store.dialect, { organizationId: template.organization_id, ...users }),
      acl.aclGroups(this.db, template.organization_id),
    ]);
    return { users: userRows, groups };
  }

  /** Which of the ids name no live user, and which no group of the template's organization. */
  async missing(
    template: TemplateRow,
    ids: { readonly users: readonly string[]; readonly groups: readonly string[] },
  ): Promise<{ readonly users: string[]; readonly groups: string[] }> {
    this.require('update', templateRbac(template));
    const [users, groups] = await Promise.all([
      acl.missingUserIds(this.db, ids.users),
      acl.missingGroupIds(this.db, template.organization_id, ids.groups),
    ]);
    return { users, groups };
  }

  /**
   * Sets entries of the template's ACLs (no actions removes one), keeping the others as they are
   * in the database at that moment. Returns the template as changed.
   */
  async change(
    template: TemplateRow,
    changes: {
      readonly users: Readonly<Record<string, readonly string[]>>;
      readonly groups: Readonly<Record<string, readonly string[]>>;
    },
  ): Promise<TemplateRow> {
    this.require('update', templateRbac(template));
    const now = this.store.nowIso();
    return this.audited(
      async (trx) => {
        const next = await acl.changeTemplateAcl(trx, template.id, changes, now);
        return next ? { ...template, ...next, updated_at: now } : template;
      },
      (after) =>
        after === template
          ? undefined
          : {
              resourceType: 'template',
              action: 'write',
              resourceId: template.id,
              resourceTarget: template.name,
              resourceIcon: template.icon,
              organizationId: template.organization_id,
              old: { user_acl: parseJson<unknown>(template.user_acl, {}), group_acl: parseJson<unknown>(template.group_acl, {}) },
              new: { user_acl: parseJson<unknown>(after.user_acl, {}), group_acl: parseJson<unknown>(after.group_acl, {}) },
            },
    );
  }
}
