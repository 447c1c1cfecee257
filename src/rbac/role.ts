import type { Action, ResourceType } from './policy.js';

/**
 * One grant (or, with `negate`, one denial) of an action on a resource type. Either side may be
 * the wildcard `*`.
 */
export interface Permission {
  readonly negate: boolean;
  readonly resource_type: ResourceType | '*';
  readonly action: Action | '*';
}

/**
 * A named set of permissions at the three levels of the model. Role values are treated as
 * immutable: `authorize` caches a compiled form of each permission list by identity.
 */
export interface Role {
  /** e.g. `owner`, `organization-admin`, or a custom role name. */
  readonly name: string;
  readonly display_name: string;
  /** `''` for site roles, else the organization the role is scoped to. */
  readonly organization_id: string;
  /** Applies to every object. */
  readonly site: readonly Permission[];
  /** Applies to objects of `organization_id` only (ignored for site roles). */
  readonly org: readonly Permission[];
  /** Applies to objects owned by the subject. */
  readonly user: readonly Permission[];
}

/** Positive permissions for each of `actions` on `type`. */
export function allow(type: ResourceType | '*', actions: readonly (Action | '*')[]): Permission[] {
  return actions.map((action) => ({ negate: false, resource_type: type, action }));
}

/** Negative permissions for each of `actions` on `type`. */
export function deny(type: ResourceType | '*', actions: readonly (Action | '*')[]): Permission[] {
  return actions.map((action) => ({ negate: true, resource_type: type, action }));
}
