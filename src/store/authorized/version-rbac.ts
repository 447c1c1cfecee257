import type { Kysely } from 'kysely';
import { orgScoped, type RbacObject } from '../../rbac/index.js';
import * as templates from '../queries/templates.js';
import { templateRbac } from '../rbac-objects.js';
import type { Database } from '../schema.js';

/** The RBAC object of a version: its template's, or for a version of no template yet its creator's. */
export async function versionRbac(db: Kysely<Database>, version: templates.TemplateVersionRow): Promise<RbacObject> {
  return (await versionsRbac(db, [version]))[0] ?? orgScoped('template', version.organization_id);
}

/** The RBAC objects of versions (their templates', or for a version of no template yet its creator's), in one query. */
export async function versionsRbac(db: Kysely<Database>, versions: readonly templates.TemplateVersionRow[]): Promise<RbacObject[]> {
  const templateIds = [...new Set(versions.flatMap((version) => (version.template_id ? [version.template_id] : [])))];
  const found = await templates.templateAcls(db, templateIds);
  const byId = new Map(found.map((template) => [template.id, templateRbac(template)]));
  return versions.map((version) =>
    version.template_id
      ? (byId.get(version.template_id) ?? orgScoped('template', version.organization_id))
      : orgScoped('template', version.organization_id, version.created_by),
  );
}
