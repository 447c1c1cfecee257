import { ProvisionerError, type NameValue, type TemplateVariable } from '../provisioner.js';

/** A template variable as a template declares it, before any value is supplied. */
export interface VariableDeclaration {
  readonly name: string;
  readonly description: string;
  readonly type: 'string' | 'number' | 'bool';
  readonly default_value: string;
  readonly required: boolean;
  readonly sensitive: boolean;
}

/**
 * Gives each declared variable its value: the one supplied for the template version, else its
 * default. Throws ProvisionerError with code REQUIRED_TEMPLATE_VARIABLES, in the reference's words,
 * when required variables are left without a value; and a plain ProvisionerError when a supplied
 * value does not fit the variable's type. Supplied values for undeclared names are ignored.
 */
export function resolveVariables(declarations: readonly VariableDeclaration[], values: readonly NameValue[]): TemplateVariable[] {
  const supplied = new Map(values.map((entry) => [entry.name, entry.value]));
  const resolved = declarations.map((declaration): TemplateVariable => {
    const value = supplied.get(declaration.name) ?? declaration.default_value;
    return { ...declaration, value };
  });
  const missing = resolved.filter((variable) => variable.required && variable.value === '').map((variable) => variable.name);
  if (missing.length > 0) {
    throw new ProvisionerError(`required template variables need values: ${missing.join(', ')}`, { code: 'REQUIRED_TEMPLATE_VARIABLES' });
  }
  for (const variable of resolved) {
    const problem = variableValueProblem(variable.type, variable.value);
    if (problem !== undefined && supplied.has(variable.name)) {
      throw new ProvisionerError(`template variable "${variable.name}" ${problem}`);
    }
  }
  return resolved;
}

/** Supplied names that no declaration has; worth a warning, since they are most likely typos. */
export function undeclaredVariableNames(declarations: readonly VariableDeclaration[], values: readonly NameValue[]): string[] {
  const declared = new Set(declarations.map((declaration) => declaration.name));
  return [...new Set(values.map((entry) => entry.name).filter((name) => !declared.has(name)))];
}

/** What is wrong with a value for a variable of this type, or undefined. Empty values pass. */
export function variableValueProblem(type: VariableDeclaration['type'], value: string): string | undefined {
  if (value === '') return undefined;
  if (type === 'number' && (value.trim() === '' || !Number.isFinite(Number(value)))) return `must be a number (got "${value}")`;
  if (type === 'bool' && value !== 'true' && value !== 'false') return `must be true or false (got "${value}")`;
  return undefined;
}
