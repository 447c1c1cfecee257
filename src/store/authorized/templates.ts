import type { AuditChange } from '../audit/audit-request.js';
import { StoreFamily } from './store-family.js';
import type { VersionWithJob } from './template-versions.js';
import { versionRbac } from './version-rbac.js';
import { templateRbac } from '../rbac-objects.js';
import { withConflicts } from '../db-errors.js';
import { allowedRows } from '../authz-filter.js';
import { aclAllowedRows } from '../acl-filter.js';
import { listFilter, organizationObject, orgScoped } from '../../rbac/index.js';
import { isUuid } from '../../lib/random.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import * as templates from '../queries/templates.js';
import * as organizations from '../queries/organizations.js';

/** Templates. */
export class TemplateStore extends StoreFamily {
  /** A live template by id. */
  async get(id: string): Promise<templates.TemplateRow> {
    const row = isUuid(id) ? await templates.getTemplateById(this.db, id) : undefined;
    if (!row) throw new NotFoundError('template');
    this.require('read', templateRbac(row));
    return row;
  }

  /**
   * A live template with a version of it (the active one unless `versionId` names another) and
   * that version's import job, read together; and its organization, when the subject may read that
   * too (what a template's ACL grants may not). A named version of another template is not found.
   */
  async getWithVersion(
    id: string,
    versionId?: string,
  ): Promise<
    VersionWithJob & { readonly template: templates.TemplateRow; readonly organization: organizations.OrganizationRow | undefined }
  > {
    const found = isUuid(id) ? await templates.getTemplateWithVersion(this.db, id, versionId) : undefined;
    if (!found) throw new NotFoundError('template');
    const { template, organization, version, job } = found;
    this.require('read', templateRbac(template));
    // The template's own rights cover its versions, so the version's are not checked again.
    if (!version || version.template_id !== template.id) throw new NotFoundError('template version');
    if (!job) throw new NotFoundError('provisioner job');
    const readable = organization && this.can('read', organizationObject(organization.id)) ? organization : undefined;
    return { template, organization: readable, version, job };
  }

  /** A live template of an organization by name. */
  async getByName(organizationId: string, name: string): Promise<templates.TemplateRow> {
    const row = await templates.getTemplateByName(this.db, organizationId, name);
    if (!row) throw new NotFoundError('template');
    this.require('read', templateRbac(row));
    return row;
  }

  /**
   * Live templates the subject may read, by name: by role or through the templates' ACLs, both
   * decided in SQL, and filtered and paged there too.
   */
  async list(filter: templates.TemplateListFilter = {}): Promise<templates.TemplateRow[]> {
    const byRole = listFilter(this.subject, 'read', 'template');
    const dialect = this.store.dialect;
    return templates.listTemplates(
      this.db,
      dialect,
      (eb) =>
        byRole.all
          ? eb.lit(true)
          : eb.or([
              allowedRows(eb, byRole, { org: 'templates.organization_id', owner: null }),
              aclAllowedRows(dialect, this.subject, 'read', 'template', {
                org: 'templates.organization_id',
                userAcl: 'templates.user_acl',
                groupAcl: 'templates.group_acl',
              }),
            ]),
      filter,
    );
  }

  /** What answers for readable templates show besides their rows, in a fixed number of queries. */
  async relations(rows: readonly templates.TemplateRow[]): Promise<templates.TemplateRelations> {
    for (const row of rows) this.require('read', templateRbac(row));
    const since = new Date(this.store.clock.now().getTime() - 30 * 24 * 3_600_000).toISOString();
    return templates.templateRelations(this.db, rows, since, this.store.templateStatistics);
  }

  /** Whether a live workspace uses a readable template (one must not delete it then). */
  async hasWorkspaces(template: templates.TemplateRow): Promise<boolean> {
    this.require('read', templateRbac(template));
    return templates.templateHasWorkspaces(this.db, template.id);
  }

  /**
   * Applies a lowered maximum share level to the shares of the template's workspaces; `levels`
   * lists the levels from the narrowest. Needs `update` on the template.
   */
  async narrowPortShares(template: templates.TemplateRow, levels: readonly string[]): Promise<void> {
    this.require('update', templateRbac(template));
    await templates.narrowPortShares(this.db, template.id, template.max_port_share_level, levels);
  }

  /** Creates a template from a version that belongs to no template yet, making it the active version. */
  async insert(row: templates.TemplateRow): Promise<templates.TemplateRow> {
    this.require('create', orgScoped('template', row.organization_id));
    return this.audited(
      async (trx) => {
        await withConflicts(() => templates.insertTemplate(trx, row));
        const claimed = await trx
          .updateTable('template_versions')
          .set({ template_id: row.id, updated_at: row.created_at })
          .where('id', '=', row.active_version_id)
          .where('template_id', 'is', null)
          .executeTakeFirst();
        if (Number(claimed.numUpdatedRows) !== 1)
          throw new ConflictError('template_versions_template', 'version already belongs to a template');
        return row;
      },
      (created) => templateChange('create', undefined, created),
    );
  }

  /** Changes a template's row; `delete` marks it deleted. */
  async update(
    template: templates.TemplateRow,
    changes: Partial<Omit<templates.TemplateRow, 'id'>>,
    action: 'update' | 'delete' = 'update',
  ): Promise<templates.TemplateRow> {
    this.require(action, templateRbac(template));
    return this.audited(
      async (trx) => {
        await withConflicts(() => templates.updateTemplate(trx, template.id, { ...changes, updated_at: this.store.nowIso() }));
        return (await templates.getTemplateById(trx, template.id)) ?? { ...template, ...changes };
      },
      (updated) => templateChange(action === 'delete' ? 'delete' : 'write', template, updated),
    );
  }

  /** Throws NotAuthorizedError unless the subject may act on the template (or on a version's template). */
  async authorize(
    action: 'update' | 'delete' | 'use',
    target: { readonly template: templates.TemplateRow } | { readonly version: templates.TemplateVersionRow },
  ): Promise<void> {
    this.require(action, 'template' in target ? templateRbac(target.template) : await versionRbac(this.db, target.version));
  }
}

/** A template's audit entry. */
function templateChange(action: string, before: templates.TemplateRow | undefined, after: templates.TemplateRow): AuditChange {
  return {
    resourceType: 'template',
    action,
    resourceId: after.id,
    resourceTarget: after.name,
    resourceIcon: after.icon,
    organizationId: after.organization_id,
    old: before,
    new: action === 'delete' ? undefined : after,
  };
}
