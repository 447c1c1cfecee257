import type { Command } from 'commander';
import { ApiError } from '../../sdk/api-error.js';
import type { CoveClient } from '../../sdk/client.js';
import type { Template, TemplateVersion } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { OptionSpec } from '../command.js';

/** `-O/--org`, for the commands where an organization matters. */
export const orgOption: OptionSpec = {
  flags: '-O, --org <organization>',
  description: 'Organization name or id',
  default: 'default',
  env: 'COVE_ORGANIZATION',
};

/**
 * Adds options that may be given more than once, each time with one value. Declared through
 * `configure` because a variadic option (`<value...>`) would also swallow the positional
 * arguments that follow it.
 */
export function repeatableOptions(options: readonly OptionSpec[]): (command: Command) => Promise<void> {
  return async (command) => {
    for (const option of options) {
      command.option(option.flags, option.description, (value: string, previous: readonly string[] | undefined) => [
        ...(previous ?? []),
        value,
      ]);
    }
  };
}

/** The values of a repeatable option; none when it was not given. */
export function listOption(options: Readonly<Record<string, unknown>>, key: string): string[] {
  const value = options[key];
  return Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : [];
}

/**
 * The values of a repeatable option; when the flag was not given, those of its variable
 * (`option.env`), separated by commas, a value holding a comma or quote written in double quotes
 * (`"tags=[""a"",""b""]"`), as the reference reads a list flag from its environment. Repeatable
 * options are declared by `repeatableOptions`, so their variables are read here.
 */
export function listOptionOrEnv(
  options: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>>,
  key: string,
  option: OptionSpec,
): string[] {
  const given = listOption(options, key);
  const text = option.env === undefined ? undefined : env[option.env];
  return given.length > 0 || text === undefined || text === '' ? given : splitCommaList(text);
}

/** One line of comma-separated values, with "" quoting. */
function splitCommaList(text: string): string[] {
  const values: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        current += '"';
        i++;
      } else if (char === '"') quoted = false;
      else current += char;
    } else if (char === '"' && current === '') quoted = true;
    else if (char === ',') {
      values.push(current);
      current = '';
    } else current += char;
  }
  values.push(current);
  return values.filter((value) => value !== '');
}

/** A string option, or undefined when it was not given. */
export function stringOption(options: Readonly<Record<string, unknown>>, key: string): string | undefined {
  const value = options[key];
  return typeof value === 'string' ? value : undefined;
}

/**
 * A boolean flag that may carry a value: `--flag` is true, `--flag=false` false; undefined when
 * not given. Anything else is a mistake worth saying.
 */
export function booleanOption(options: Readonly<Record<string, unknown>>, key: string, flag: string): boolean | undefined {
  const value = options[key];
  if (value === undefined || typeof value === 'boolean') return value;
  const text = String(value).toLowerCase();
  if (['true', 'yes', '1'].includes(text)) return true;
  if (['false', 'no', '0'].includes(text)) return false;
  throw new CliError(`${flag} takes true or false, not "${String(value)}".`, { hint: `Write ${flag}=false; a bare ${flag} means true.` });
}

/** Reads `key=value` pairs of a repeatable flag into a map (later wins). */
export function parsePairs(pairs: readonly string[], flag: string): Record<string, string> {
  const map: Record<string, string> = {};
  for (const pair of pairs) {
    const index = pair.indexOf('=');
    if (index <= 0) throw new CliError(`${flag} "${pair}" is not key=value.`);
    map[pair.slice(0, index)] = pair.slice(index + 1);
  }
  return map;
}

/** The template named `name` in the organization, or undefined when there is none (or it is invisible). */
export async function findTemplate(client: CoveClient, organization: string, name: string): Promise<Template | undefined> {
  try {
    return await client.templateByName(organization, name);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

/** The template named `name`, or a clear error. */
export async function requireTemplate(client: CoveClient, organization: string, name: string): Promise<Template> {
  const template = await findTemplate(client, organization, name);
  if (!template) {
    const shown = await organizationName(client, organization);
    throw new CliError(`No template named "${name}" in organization ${shown}.`, { hint: 'See "cove templates list".' });
  }
  return template;
}

/**
 * The organization's real name for a message: `-O` defaults to "default" (or takes an id), which
 * names no organization a person would recognise. The text given, when it cannot be looked up.
 */
export async function organizationName(client: CoveClient, organization: string): Promise<string> {
  try {
    return (await client.organization(organization)).name;
  } catch {
    // The message being built is the error to report, not this one.
    return organization;
  }
}

/**
 * A version of a template: `active` (the default), `latest` (the newest), or a version name.
 */
export async function resolveVersion(client: CoveClient, template: Template, which = 'active'): Promise<TemplateVersion> {
  if (which === 'active') return client.templateVersion(template.active_version_id);
  if (which === 'latest') {
    const versions = await client.templateVersions(template.id);
    const newest = versions.reduce<TemplateVersion | undefined>(
      (best, v) => (best === undefined || v.created_at > best.created_at ? v : best),
      undefined,
    );
    if (!newest) throw new CliError(`Template "${template.name}" has no versions.`);
    return newest;
  }
  try {
    return await client.templateVersionByName(template.id, which);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      throw new CliError(`Template "${template.name}" has no version named "${which}".`, {
        hint: `See "cove templates versions list ${template.name}".`,
      });
    }
    throw error;
  }
}
