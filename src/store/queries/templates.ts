import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { Database, TemplateTable, TemplateVersionTable } from '../schema.js';

export type TemplateRow = Selectable<TemplateTable>;
export type TemplateVersionRow = Selectable<TemplateVersionTable>;

/** A live template by id. */
export async function getTemplateById(db: Kysely<Database>, id: string): Promise<TemplateRow | undefined> {
  return db.selectFrom('templates').selectAll().where('id', '=', id).where('deleted', '=', 0).executeTakeFirst();
}

/** A live template of an organization by name, case-insensitively. */
export async function getTemplateByName(db: Kysely<Database>, organizationId: string, name: string): Promise<TemplateRow | undefined> {
  return db
    .selectFrom('templates')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where(sql<string>`lower(name)`, '=', name.toLowerCase())
    .where('deleted', '=', 0)
    .executeTakeFirst();
}

/** Live templates, optionally of some organizations, by name. */
export async function listTemplates(db: Kysely<Database>, organizationIds?: readonly string[]): Promise<TemplateRow[]> {
  let query = db.selectFrom('templates').selectAll().where('deleted', '=', 0);
  if (organizationIds) {
    if (organizationIds.length === 0) return [];
    query = query.where('organization_id', 'in', organizationIds);
  }
  return query.orderBy('name').orderBy('id').execute();
}

export async function insertTemplate(db: Kysely<Database>, row: TemplateRow): Promise<void> {
  await db.insertInto('templates').values(row).execute();
}

export async function updateTemplate(db: Kysely<Database>, id: string, changes: Updateable<TemplateTable>): Promise<void> {
  await db.updateTable('templates').set(changes).where('id', '=', id).execute();
}

/** One version by id. */
export async function getTemplateVersionById(db: Kysely<Database>, id: string): Promise<TemplateVersionRow | undefined> {
  return db.selectFrom('template_versions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** One version of a template by name, case-insensitively. */
export async function getTemplateVersionByName(
  db: Kysely<Database>,
  templateId: string,
  name: string,
): Promise<TemplateVersionRow | undefined> {
  return db
    .selectFrom('template_versions')
    .selectAll()
    .where('template_id', '=', templateId)
    .where(sql<string>`lower(name)`, '=', name.toLowerCase())
    .executeTakeFirst();
}

/** Versions of a template, oldest first. */
export async function listTemplateVersions(db: Kysely<Database>, templateId: string): Promise<TemplateVersionRow[]> {
  return db.selectFrom('template_versions').selectAll().where('template_id', '=', templateId).orderBy('created_at').orderBy('id').execute();
}

export async function insertTemplateVersion(db: Kysely<Database>, row: TemplateVersionRow): Promise<void> {
  await db.insertInto('template_versions').values(row).execute();
}

export async function updateTemplateVersion(db: Kysely<Database>, id: string, changes: Updateable<TemplateVersionTable>): Promise<void> {
  await db.updateTable('template_versions').set(changes).where('id', '=', id).execute();
}
