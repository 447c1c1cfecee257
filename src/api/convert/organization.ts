import type { Organization } from '../../sdk/wire/index.js';
import type { OrganizationRow } from '../../store/rows.js';

/** An organization row as the API shows it. */
export function toWireOrganization(row: OrganizationRow): Organization {
  return {
    id: row.id,
    name: row.name,
    display_name: row.display_name,
    description: row.description,
    icon: row.icon,
    created_at: row.created_at,
    updated_at: row.updated_at,
    is_default: Number(row.is_default) === 1,
  };
}
