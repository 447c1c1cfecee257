import { HttpProblem } from '../lib/errors.js';
import { MEMBER_ROLE, SITE_ROLE_NAMES } from '../rbac/index.js';
import type { DeploymentValues } from './options/registry.js';

/**
 * Group and role sync from the OIDC provider's claims, as the reference's deployment-wide ("legacy")
 * settings define it: the group claim's values are mapped to group names, filtered by a regular
 * expression, and the user becomes a member of exactly the groups of the default organization so
 * named (groups of any source: sync owns the organization's memberships, as in the reference); the
 * role claim's values, mapped, become the user's site roles. Pure functions: what to do, not doing it.
 */

/** The sync settings, parsed once from the options. */
export interface IdpSyncSettings {
  readonly groupField: string;
  readonly groupMapping: ReadonlyMap<string, readonly string[]>;
  readonly groupFilter: RegExp | undefined;
  readonly autoCreateGroups: boolean;
  readonly allowedGroups: readonly string[];
  readonly roleField: string;
  readonly roleMapping: ReadonlyMap<string, readonly string[]>;
}

type SyncOptions = Pick<
  DeploymentValues,
  | 'oidcGroupField'
  | 'oidcGroupMapping'
  | 'oidcGroupRegexFilter'
  | 'oidcGroupAutoCreate'
  | 'oidcAllowedGroups'
  | 'oidcUserRoleField'
  | 'oidcUserRoleMapping'
>;

/** Reads the sync options; throws an Error naming the flag at fault (the option check reports it at start). */
export function idpSyncSettings(values: SyncOptions): IdpSyncSettings {
  let groupFilter: RegExp | undefined;
  if (values.oidcGroupRegexFilter !== '') {
    try {
      groupFilter = new RegExp(values.oidcGroupRegexFilter, 'u');
    } catch (error) {
      throw new Error(`--oidc-group-regex-filter: ${(error as Error).message}`);
    }
  }
  if (values.oidcAllowedGroups.length > 0 && values.oidcGroupField === '') {
    throw new Error('--oidc-allowed-groups needs --oidc-group-field: the claim that holds the groups');
  }
  return {
    groupField: values.oidcGroupField,
    groupMapping: parseMapping('--oidc-group-mapping', values.oidcGroupMapping),
    groupFilter,
    autoCreateGroups: values.oidcGroupAutoCreate,
    allowedGroups: values.oidcAllowedGroups,
    roleField: values.oidcUserRoleField,
    roleMapping: parseMapping('--oidc-user-role-mapping', values.oidcUserRoleMapping),
  };
}

/** A JSON object from claim value to a name or a list of names. */
function parseMapping(flag: string, text: string): ReadonlyMap<string, readonly string[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.trim() === '' ? '{}' : text);
  } catch (error) {
    throw new Error(`${flag}: not JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${flag}: must be a JSON object from claim value to name(s)`);
  }
  const mapping = new Map<string, readonly string[]>();
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value === 'string') mapping.set(key, [value]);
    else if (Array.isArray(value) && value.every((item) => typeof item === 'string')) mapping.set(key, value);
    else throw new Error(`${flag}: the value of "${key}" must be a name or a list of names`);
  }
  return mapping;
}

/**
 * The strings of a claim: an array of strings, or one string (a comma in it is refused: a provider
 * sending a CSV string is misconfigured, and splitting it would guess). Missing or null is none.
 */
export function claimStrings(claim: unknown): string[] {
  if (claim === undefined || claim === null || claim === '') return [];
  if (typeof claim === 'string') {
    if (claim.includes(','))
      throw new Error(`the claim is a comma-separated string ("${claim}"); the provider must send an array of strings`);
    return [claim];
  }
  if (Array.isArray(claim)) {
    return claim.map((item, index) => {
      if (typeof item !== 'string') throw new Error(`element ${index} of the claim is ${typeOf(item)}, not a string`);
      return item;
    });
  }
  throw new Error(`the claim is ${typeOf(claim)}, not an array of strings`);
}

/** The kind of a JSON value, with its article, for messages. */
function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Refuses a sign-in whose group claim names none of the allowed groups (when there is an allow list). */
export function checkAllowedGroups(settings: IdpSyncSettings, claims: Readonly<Record<string, unknown>>): void {
  if (settings.allowedGroups.length === 0) return;
  if (!(settings.groupField in claims)) {
    throw new HttpProblem(403, 'Not a member of an allowed group', {
      detail: `Your provider sent no "${settings.groupField}" claim, so your groups are unknown. Ask an administrator to add your groups to the claims.`,
    });
  }
  let groups: string[];
  try {
    groups = claimStrings(claims[settings.groupField]);
  } catch (error) {
    throw new HttpProblem(400, 'Failed to read the groups from the claims for the allowed groups check. Ask an administrator for help.', {
      detail: `The "${settings.groupField}" claim: ${(error as Error).message}`,
    });
  }
  if (!groups.some((group) => settings.allowedGroups.includes(group))) {
    throw new HttpProblem(403, 'Not a member of an allowed group', {
      detail: 'None of your groups at the provider may sign in here. Ask an administrator to add one of your groups to the allowed groups.',
    });
  }
}

/** What became of one value of the group claim. */
export interface GroupClaimOutcome {
  readonly claim_value: string;
  /** The group name after the mapping; one claim value may map to several. */
  readonly group_name: string;
  /** `filtered`: the regex filter drops it; otherwise the group is synced (found or created, or missing). */
  readonly filtered: boolean;
}

/**
 * The group names the claims ask for, each with the claim value it came from. Undefined when group
 * sync is off or the claim cannot be read (then memberships are left as they are, as the reference
 * does); `error` says why it could not be read.
 */
export function groupOutcomes(
  settings: IdpSyncSettings,
  claims: Readonly<Record<string, unknown>>,
): { readonly outcomes: GroupClaimOutcome[] } | { readonly error: string } | undefined {
  if (settings.groupField === '') return undefined;
  let values: string[];
  try {
    values = claimStrings(claims[settings.groupField]);
  } catch (error) {
    return { error: `the "${settings.groupField}" claim: ${(error as Error).message}` };
  }
  const outcomes: GroupClaimOutcome[] = [];
  for (const value of values) {
    for (const name of settings.groupMapping.get(value) ?? [value]) {
      outcomes.push({ claim_value: value, group_name: name, filtered: settings.groupFilter ? !settings.groupFilter.test(name) : false });
    }
  }
  return { outcomes };
}

/** The distinct group names synced from outcomes (the filtered ones left out). */
export function syncedGroupNames(outcomes: readonly GroupClaimOutcome[]): string[] {
  return [...new Set(outcomes.filter((outcome) => !outcome.filtered).map((outcome) => outcome.group_name))];
}

/** What became of one value of the role claim. */
export interface RoleClaimOutcome {
  readonly claim_value: string;
  readonly role: string;
  /** Whether the role is a site role sync assigns; others are ignored. */
  readonly assignable: boolean;
}

/** Site roles sync may give: the built-in ones (member is everyone's already). */
const SYNCED_SITE_ROLES: ReadonlySet<string> = new Set(SITE_ROLE_NAMES.filter((name) => name !== MEMBER_ROLE));

/**
 * The site roles the claims ask for. Undefined when role sync is off. A claim that cannot be read
 * refuses the sign-in (as the reference does): the user's roles would otherwise be guessed.
 */
export function roleOutcomes(settings: IdpSyncSettings, claims: Readonly<Record<string, unknown>>): RoleClaimOutcome[] | undefined {
  if (settings.roleField === '') return undefined;
  let values: string[];
  try {
    values = claimStrings(claims[settings.roleField]);
  } catch (error) {
    throw new HttpProblem(400, 'Sign-in is refused until the role claim is fixed.', {
      detail: `The "${settings.roleField}" claim (--oidc-user-role-field): ${(error as Error).message}. Unsetting role sync lets sign-in proceed.`,
    });
  }
  const outcomes: RoleClaimOutcome[] = [];
  for (const value of values) {
    for (const role of settings.roleMapping.get(value) ?? [value]) {
      outcomes.push({ claim_value: value, role, assignable: SYNCED_SITE_ROLES.has(role) });
    }
  }
  return outcomes;
}

/** The distinct site roles given by outcomes, sorted. */
export function syncedSiteRoles(outcomes: readonly RoleClaimOutcome[]): string[] {
  return [...new Set(outcomes.filter((outcome) => outcome.assignable).map((outcome) => outcome.role))].sort();
}
