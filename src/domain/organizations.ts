import { ConflictError, forbiddenProblem, HttpProblem } from '../lib/errors.js';
import { organizationObject } from '../rbac/index.js';
import { newId } from '../lib/random.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import { parseStringArray } from '../store/json-column.js';
import type { OrganizationRow } from '../store/rows.js';
import { nameProblem, ruleDetail } from './names.js';

function checkName(name: string): void {
  if (name.toLowerCase() === 'default') throw new HttpProblem(400, `Organization name "${name}" is reserved.`);
  const problem = nameProblem(name);
  if (problem) {
    throw new HttpProblem(400, 'Validation failed.', {
      validations: [{ field: 'name', detail: `${ruleDetail('organization_name', name)}: ${problem}` }],
    });
  }
}

function checkDisplayName(displayName: string): void {
  if (displayName.length > 64 || displayName !== displayName.trim()) {
    throw new HttpProblem(400, 'Validation failed.', {
      validations: [{ field: 'display_name', detail: ruleDetail('organization_display_name', displayName) }],
    });
  }
}

/** Creates an organization; its creator becomes a member. */
export async function createOrganization(
  store: AuthorizedStore,
  body: { name: string; display_name?: string | undefined; description?: string | undefined; icon?: string | undefined },
  now: Date,
): Promise<OrganizationRow> {
  checkName(body.name);
  const displayName = body.display_name || body.name;
  checkDisplayName(displayName);
  const iso = now.toISOString();
  try {
    return await store.organizations.create({
      id: newId(),
      name: body.name,
      display_name: displayName,
      description: body.description ?? '',
      icon: body.icon ?? '',
      is_default: 0,
      workspace_sharing_disabled: 0,
      created_at: iso,
      updated_at: iso,
    });
  } catch (error) {
    if (error instanceof ConflictError) throw new HttpProblem(409, 'Organization already exists with that name.');
    throw error;
  }
}

/** Updates an organization: empty names mean unchanged; description and icon overwrite when given. */
export async function updateOrganization(
  store: AuthorizedStore,
  organization: OrganizationRow,
  body: { name?: string | undefined; display_name?: string | undefined; description?: string | undefined; icon?: string | undefined },
): Promise<OrganizationRow> {
  const changes: Partial<OrganizationRow> = {};
  if (body.name) {
    checkName(body.name);
    changes.name = body.name;
  }
  if (body.display_name) {
    checkDisplayName(body.display_name);
    changes.display_name = body.display_name;
  }
  if (body.description !== undefined) changes.description = body.description;
  if (body.icon !== undefined) changes.icon = body.icon;
  try {
    return await store.organizations.update(organization.id, changes);
  } catch (error) {
    if (error instanceof ConflictError) {
      throw new HttpProblem(409, `Organization already exists with the name "${body.name ?? ''}".`, {
        validations: [{ field: 'name', detail: 'This value is already in use and should be unique.' }],
      });
    }
    throw error;
  }
}

/** Deletes an organization unless it is the default one or still has members besides its admins. */
export async function deleteOrganization(store: AuthorizedStore, organization: OrganizationRow): Promise<void> {
  // Those who may not delete it learn nothing more about it than that.
  if (!store.can('delete', organizationObject(organization.id))) throw forbiddenProblem();
  if (Number(organization.is_default) === 1) throw new HttpProblem(400, 'Default organization cannot be deleted.');
  const { rows } = await store.members.list(organization.id, { limit: 0, offset: 0 });
  const others = rows.filter((row) => !parseStringArray(row.roles).includes('organization-admin') && row.user_id !== store.subject.id);
  if (others.length > 0) {
    throw new HttpProblem(400, 'Organization still has members.', {
      // The whole count first, as "members list" shows it, then how many stand in the way.
      detail:
        `cannot delete organization: organization has ${rows.length} member${rows.length === 1 ? '' : 's'}; ` +
        `${others.length} of them ${others.length === 1 ? 'is not an organization admin and must' : 'are not organization admins and must'} be removed first`,
    });
  }
  await store.organizations.delete(organization.id);
}
