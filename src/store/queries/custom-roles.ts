import type { Kysely, Selectable } from 'kysely';
import type { CustomRoleTable, Database } from '../schema.js';

export type CustomRoleRow = Selectable<CustomRoleTable>;

/** The custom roles of some organizations. */
export async function listCustomRolesOfOrganizations(db: Kysely<Database>, organizationIds: readonly string[]): Promise<CustomRoleRow[]> {
  if (organizationIds.length === 0) return [];
  return db.selectFrom('custom_roles').selectAll().where('organization_id', 'in', organizationIds).execute();
}
