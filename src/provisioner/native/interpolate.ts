/**
 * `${{ ... }}` expansion for `template.yaml`. An expression is a reference and nothing else:
 * `parameters.<name>`, `variables.<name>`, `workspace.<field>` or `resources.<name>.<field>`.
 * There are no operators, functions or defaults, and nothing is ever evaluated as code. Values are
 * inserted once, as they are: a value that itself contains `${{ }}` is not expanded again, so a
 * parameter cannot smuggle in a reference to a variable. `$${{` writes a literal `${{`.
 */

/** The workspace fields a template may read. */
export const WORKSPACE_FIELDS = ['id', 'name', 'owner', 'owner_id', 'transition', 'start_count'] as const;
export type WorkspaceField = (typeof WORKSPACE_FIELDS)[number];

/** What references resolve against. */
export interface InterpolationScope {
  readonly parameters: Readonly<Record<string, string>>;
  readonly variables: Readonly<Record<string, string>>;
  readonly workspace: Readonly<Record<WorkspaceField, string>>;
  /**
   * A field of another resource, or undefined when there is no such resource or field. May throw
   * InterpolationError (a reference cycle, or a problem in that resource's own field).
   */
  readonly resource: (name: string, field: string) => string | undefined;
}

/** A reference that cannot be resolved, or an expression that is not a reference. */
export class InterpolationError extends Error {
  /** The field path of the text being expanded, e.g. `resources[1].agents[0].env.PYTHON_VERSION`. */
  readonly field: string;
  /** What is wrong, without the field: `has an unknown reference "parameters.pyton"`. */
  readonly problem: string;

  constructor(field: string, problem: string) {
    super(`${field} ${problem}`);
    this.name = 'InterpolationError';
    this.field = field;
    this.problem = problem;
  }
}

const OPEN = '${{';
const CLOSE = '}}';
const REFERENCE = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** True when `text` holds at least one `${{`, escaped or not. */
export function hasExpressions(text: string): boolean {
  return text.includes(OPEN);
}

/** Expands every `${{ reference }}` of `text` for the field at `field`. */
export function interpolate(text: string, scope: InterpolationScope, field: string): string {
  let out = '';
  let from = 0;
  for (let at = text.indexOf(OPEN); at !== -1; at = text.indexOf(OPEN, from)) {
    if (at > 0 && text[at - 1] === '$') {
      out += text.slice(from, at - 1) + OPEN;
      from = at + OPEN.length;
      continue;
    }
    const end = text.indexOf(CLOSE, at + OPEN.length);
    if (end === -1) throw new InterpolationError(field, `has a "${OPEN}" without a closing "${CLOSE}"`);
    const reference = text.slice(at + OPEN.length, end).trim();
    out += text.slice(from, at) + resolve(reference, scope, field);
    from = end + CLOSE.length;
  }
  return out + text.slice(from);
}

function resolve(reference: string, scope: InterpolationScope, field: string): string {
  if (!REFERENCE.test(reference)) {
    throw new InterpolationError(
      field,
      `has an expression "${reference}" that is not a reference; only parameters.<name>, variables.<name>, workspace.<field> and resources.<name>.<field> are allowed`,
    );
  }
  const [root, first, second, ...rest] = reference.split('.');
  const unknown = (): InterpolationError => new InterpolationError(field, `has an unknown reference "${reference}"`);
  if (first === undefined || rest.length > 0) throw unknown();
  switch (root) {
    case 'parameters':
      return second === undefined && Object.hasOwn(scope.parameters, first) ? (scope.parameters[first] ?? '') : fail(unknown());
    case 'variables':
      return second === undefined && Object.hasOwn(scope.variables, first) ? (scope.variables[first] ?? '') : fail(unknown());
    case 'workspace':
      return second === undefined && isWorkspaceField(first) ? scope.workspace[first] : fail(unknown());
    case 'resources': {
      const value = second === undefined ? undefined : scope.resource(first, second);
      return value ?? fail(unknown());
    }
    default:
      throw unknown();
  }
}

function isWorkspaceField(name: string): name is WorkspaceField {
  return (WORKSPACE_FIELDS as readonly string[]).includes(name);
}

function fail(error: Error): never {
  throw error;
}
