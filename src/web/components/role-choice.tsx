// Checkboxes for a set of roles: those the signed-in user may not assign are shown, but fixed.
import type { AssignableRole } from '../../sdk/wire/index.js';

export function RoleChoice({
  legend,
  roles,
  chosen,
  onChange,
  disabled,
}: {
  legend: string;
  roles: readonly AssignableRole[];
  chosen: ReadonlySet<string>;
  onChange: (chosen: ReadonlySet<string>) => void;
  disabled?: boolean;
}) {
  const toggle = (name: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(name);
    else next.delete(name);
    onChange(next);
  };
  return (
    <fieldset className="roles" disabled={disabled}>
      <legend className="field-label">{legend}</legend>
      {roles.length === 0 && <span className="muted">No roles to assign.</span>}
      {roles.map((role) => (
        <label key={role.name} className="checkbox">
          <input
            type="checkbox"
            name={role.name}
            checked={chosen.has(role.name)}
            disabled={!role.assignable}
            onChange={(event) => toggle(role.name, event.target.checked)}
          />
          {role.display_name || role.name}
        </label>
      ))}
    </fieldset>
  );
}
