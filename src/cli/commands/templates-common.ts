import { Option, type Command } from 'commander';
import { ApiError } from '../../sdk/api-error.js';
import type { CoveClient } from '../../sdk/client.js';
import type { Template, TemplateVersion } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { OptionSpec } from '../command.js';
import { listOption as markedListOption } from '../list-options.js';

/** `-O/--org`, for the commands where an organization matters. */
export const orgOption: OptionSpec = {
  flags: '-O, --org <organization>',
  description: 'Organization name or id',
  default: 'default',
  env: 'COVE_ORGANIZATION',
};

/**
 * Declares options that may be given more than once, each time with one value; each is read with
 * `listOption`. Declared through `configure` because a variadic option (`<value...>`) would also
 * swallow the positional arguments that follow it. An option's
 * variable (`env`) holds a comma-separated list (src/cli/list-options.ts).
 */
export function repeatableOptions(options: readonly OptionSpec[]): (command: Command) => Promise<void> {
  return async (command) => {
    for (const option of options) {
      const added = markedListOption(new Option(option.flags, option.description));
      if (option.env !== undefined) added.env(option.env);
      command.addOption(added);
    }
  };
}

/** The values of a repeatable option (flags, else its variable); none when neither gave any. */
export function listOption(options: Readonly<Record<string, unknown>>, key: string): string[] {
  const value = options[key];
  return Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : [];
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
