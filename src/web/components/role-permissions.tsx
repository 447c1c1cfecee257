// The permissions of a custom organization role, as a grid of checkboxes: per kind of resource,
// the actions members holding the role may take on it in the organization.
import type { Permission } from '../../sdk/wire/index.js';

const CRUD = ['create', 'read', 'update', 'delete'] as const;

/** The resources an organization role may grant on, with their actions, in the order people look for them. */
export const ORGANIZATION_RESOURCES: readonly (readonly [type: string, label: string, actions: readonly string[]])[] = [
  ['workspace', 'Workspaces', ['create', 'read', 'update', 'delete', 'start', 'stop', 'ssh', 'application_connect']],
  ['template', 'Templates', ['create', 'read', 'update', 'delete', 'use', 'view_insights']],
  ['group', 'Groups', CRUD],
  ['organization_member', 'Members', CRUD],
  ['assign_org_role', 'Organization roles', ['read', 'assign', 'unassign', 'create', 'update', 'delete']],
  ['provisioner_daemon', 'Provisioners', CRUD],
  ['audit_log', 'Audit log', ['read']],
  ['file', 'Files', ['create', 'read']],
];

/** The key of one permission in a set of granted ones. */
export function permissionKey(type: string, action: string): string {
  return `${type}:${action}`;
}

/** The permissions a set of keys stands for (all positive: custom roles grant, never deny). */
export function permissionsOf(keys: ReadonlySet<string>): Permission[] {
  return [...keys].map((key) => {
    const colon = key.indexOf(':');
    return { negate: false, resource_type: key.slice(0, colon), action: key.slice(colon + 1) };
  });
}

export function RolePermissions({
  granted,
  onChange,
  disabled,
}: {
  granted: ReadonlySet<string>;
  onChange: (granted: ReadonlySet<string>) => void;
  disabled?: boolean;
}) {
  const toggle = (key: string, on: boolean) => {
    const next = new Set(granted);
    if (on) next.add(key);
    else next.delete(key);
    onChange(next);
  };
  return (
    <div className="role-permissions">
      {ORGANIZATION_RESOURCES.map(([type, label, actions]) => (
        <fieldset key={type} className="roles" disabled={disabled}>
          <legend className="field-label">{label}</legend>
          {actions.map((action) => {
            const key = permissionKey(type, action);
            return (
              <label key={key} className="checkbox">
                <input type="checkbox" name={key} checked={granted.has(key)} onChange={(event) => toggle(key, event.target.checked)} />
                <span className="visually-hidden">{label}: </span>
                {action.replaceAll('_', ' ')}
              </label>
            );
          })}
        </fieldset>
      ))}
    </div>
  );
}
