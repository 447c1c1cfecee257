/** Tags of provisioner jobs and daemons: which daemons may run which jobs. */
export type ProvisionerTags = Readonly<Record<string, string>>;

const SCOPE = 'scope';
const OWNER = 'owner';

/**
 * Merges tag sets (later wins) and puts them in canonical form: `scope` is `organization` unless
 * it is `user`, in which case `owner` is the user the job or daemon belongs to; organization-scoped
 * tags carry an empty `owner`.
 */
export function normalizeTags(userId: string, ...sets: readonly (ProvisionerTags | undefined)[]): Record<string, string> {
  const merged: Record<string, string> = Object.assign({}, ...sets.filter(Boolean));
  if (merged[SCOPE] === 'user') {
    merged[OWNER] = userId;
  } else {
    merged[SCOPE] = 'organization';
    merged[OWNER] = '';
  }
  return merged;
}

/** True when the set has nothing beyond scope and owner. */
export function isUntagged(tags: ProvisionerTags): boolean {
  return Object.keys(tags).every((key) => key === SCOPE || key === OWNER);
}

/**
 * Whether a daemon may run a job: it must carry every tag of the job. Untagged jobs go only to
 * untagged daemons, so a daemon started for special jobs runs those and nothing else.
 */
export function daemonTakesJob(daemonTags: ProvisionerTags, jobTags: ProvisionerTags): boolean {
  if (isUntagged(jobTags) !== isUntagged(daemonTags)) return false;
  return Object.entries(jobTags).every(([key, value]) => daemonTags[key] === value);
}

/** Reads `key=value` pairs (CLI flags, query parameters); throws on one without `=`. */
export function parseTagPairs(pairs: readonly string[]): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const pair of pairs) {
    const index = pair.indexOf('=');
    if (index <= 0) throw new Error(`tag "${pair}" must be key=value`);
    tags[pair.slice(0, index)] = pair.slice(index + 1);
  }
  return tags;
}
