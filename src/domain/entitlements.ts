import type { AuthorizedStore } from '../store/authorized-store.js';
import type { EnabledFeatures } from '../lib/enabled-features.js';
import type { TrustedKeys } from './licenses/trusted-keys.js';
import { verifyLicense, type LicenseClaims } from './licenses/verify-license.js';
import { newId } from '../lib/random.js';

/** Licensed features (reference §5.3, spec-era list). */
export const FEATURES = [
  'user_limit',
  'audit_log',
  'browser_only',
  'scim',
  'template_rbac',
  'high_availability',
  'multiple_external_auth',
  'external_provisioner_daemons',
  'appearance',
  'advanced_template_scheduling',
  'workspace_proxy',
  'user_role_management',
  'external_token_encryption',
  'workspace_batch_actions',
  'access_control',
  'control_shared_ports',
  'custom_roles',
  'multiple_organizations',
  'workspace_prebuilds',
] as const;

/** The pubsub channel on which a license change tells every replica to compute entitlements again. */
export const ENTITLEMENTS_CHANNEL = 'entitlements:changed';

/** Features that carry a limit rather than a switch. */
const LIMIT_FEATURES: ReadonlySet<string> = new Set(['user_limit']);
const PREMIUM_ONLY: ReadonlySet<string> = new Set(['multiple_organizations', 'custom_roles']);
const DAY_MS = 86_400_000;

export type Entitlement = 'entitled' | 'grace_period' | 'not_entitled';

export interface FeatureState {
  entitlement: Entitlement;
  enabled: boolean;
  limit?: number;
  actual?: number;
}

/** `GET /entitlements`. */
export interface Entitlements {
  readonly features: Record<string, FeatureState>;
  readonly warnings: string[];
  readonly errors: string[];
  readonly has_license: boolean;
  readonly trial: boolean;
  readonly require_telemetry: boolean;
  readonly refreshed_at: string;
}

const RANK: Readonly<Record<Entitlement, number>> = { not_entitled: 0, grace_period: 1, entitled: 2 };

/** The features a license's feature set grants, besides its `features` map. */
function featureSet(claims: LicenseClaims): readonly string[] {
  const set = (claims.feature_set ?? '').toLowerCase() || (claims.all_features ? 'enterprise' : '');
  if (set === 'premium') return FEATURES.filter((name) => !LIMIT_FEATURES.has(name));
  if (set === 'enterprise') return FEATURES.filter((name) => !LIMIT_FEATURES.has(name) && !PREMIUM_ONLY.has(name));
  return [];
}

/** Whether `candidate` is the better grant of a feature (reference §5.3). */
function better(candidate: FeatureState, current: FeatureState): boolean {
  const covers = (state: FeatureState) => state.limit === undefined || (state.actual ?? 0) <= state.limit;
  if (covers(candidate) !== covers(current)) return covers(candidate);
  if (RANK[candidate.entitlement] !== RANK[current.entitlement]) return RANK[candidate.entitlement] > RANK[current.entitlement];
  return (candidate.limit ?? 0) > (current.limit ?? 0);
}

/**
 * Computes the entitlements from the stored licenses as the reference does: every license not
 * past its `exp` and already valid is verified again; its features are entitled until
 * `license_expires`, in their grace period after; the best grant of each feature wins. Warnings
 * say when the user limit is exceeded or a license is about to expire.
 */
export async function computeEntitlements(
  input: {
    readonly licenses: readonly { readonly uuid: string; readonly jwt: string; readonly exp: string }[];
    readonly activeUsers: number;
  },
  keys: TrustedKeys,
  now: Date,
): Promise<Entitlements> {
  const features: Record<string, FeatureState> = Object.fromEntries(
    FEATURES.map((name) => [name, { entitlement: 'not_entitled', enabled: false } satisfies FeatureState]),
  );
  features['user_limit'] = { entitlement: 'not_entitled', enabled: false, actual: input.activeUsers };
  const warnings: string[] = [];
  const errors: string[] = [];
  let hasLicense = false;
  let trial = false;
  let requireTelemetry = false;
  let latestExpiry = 0;
  for (const license of input.licenses) {
    if (Date.parse(license.exp) <= now.getTime()) continue;
    let claims: LicenseClaims;
    try {
      claims = await verifyLicense(license.jwt, keys, now);
    } catch (error) {
      // Not yet valid: ignored until then, as the reference.
      if ((error as Error).message.includes('not valid yet')) continue;
      errors.push(`Invalid license (${license.uuid}) parsing claims: ${(error as Error).message}`);
      continue;
    }
    hasLicense = true;
    trial = claims.trial === true;
    requireTelemetry ||= (claims as { require_telemetry?: boolean }).require_telemetry === true;
    const paidUntil = (claims.license_expires ?? 0) * 1000;
    latestExpiry = Math.max(latestExpiry, paidUntil);
    const entitlement: Entitlement = now.getTime() > paidUntil ? 'grace_period' : 'entitled';
    const grants = new Map<string, FeatureState>();
    for (const name of featureSet(claims)) grants.set(name, { entitlement, enabled: true });
    for (const [name, value] of Object.entries(claims.features ?? {})) {
      if (!(FEATURES as readonly string[]).includes(name) || !(value > 0)) continue;
      grants.set(
        name,
        LIMIT_FEATURES.has(name) ? { entitlement, enabled: true, limit: value, actual: input.activeUsers } : { entitlement, enabled: true },
      );
    }
    for (const [name, grant] of grants) {
      const current = features[name];
      if (!current || current.entitlement === 'not_entitled' || better(grant, current)) features[name] = grant;
    }
  }
  if (hasLicense) {
    const userLimit = features['user_limit'];
    if (userLimit?.limit !== undefined && input.activeUsers > userLimit.limit) {
      warnings.push(
        userLimit.entitlement === 'grace_period'
          ? `Your deployment has ${input.activeUsers} active users but the license with the limit ${userLimit.limit} is expired.`
          : `Your deployment has ${input.activeUsers} active users but is only licensed for ${userLimit.limit}.`,
      );
    }
    const daysLeft = Math.ceil((latestExpiry - now.getTime()) / DAY_MS);
    if (latestExpiry > now.getTime() && daysLeft <= (trial ? 7 : 30))
      warnings.push(`Your license expires in ${daysLeft} day${daysLeft === 1 ? '' : 's'}.`);
  }
  return {
    features,
    warnings,
    errors,
    has_license: hasLicense,
    trial,
    require_telemetry: requireTelemetry,
    refreshed_at: now.toISOString(),
  };
}

/**
 * The deployment's entitlements, computed at start, on a timer, after license changes and on
 * request; each computation also replaces the features in effect on this daemon.
 */
export class EntitlementsService {
  #current: Entitlements | undefined;
  /**
   * What this service publishes on `ENTITLEMENTS_CHANNEL` after a license change it has computed
   * already. Its own message coming back (at once on SQLite, some time later through PostgreSQL)
   * is no news: computing again then would only move `refreshed_at` at a moment nobody chose.
   */
  readonly origin = newId();

  constructor(
    /** The store as the entitlements' system subject (`SYSTEM_SUBJECTS.entitlements`). */
    private readonly store: AuthorizedStore,
    private readonly keys: TrustedKeys,
    private readonly features: EnabledFeatures,
    private readonly now: () => Date,
  ) {}

  get keysTrusted(): TrustedKeys {
    return this.keys;
  }

  /** The last computed entitlements, computing them if they never were. */
  async current(): Promise<Entitlements> {
    return this.#current ?? this.refresh();
  }

  /**
   * Computes the entitlements again and puts them in effect. Computations run one at a time, in
   * the order asked: one that read the licenses before a change (say, on another replica's news)
   * must never finish after, and overwrite, one that read them after it.
   */
  refresh(): Promise<Entitlements> {
    const computation = this.#queue.then(() => this.#compute());
    this.#queue = computation.catch(() => undefined);
    return computation;
  }

  #queue: Promise<unknown> = Promise.resolve();

  async #compute(): Promise<Entitlements> {
    const computed = await computeEntitlements(await this.store.licenses.entitlementInputs(), this.keys, this.now());
    this.#current = computed;
    this.features.replace(
      Object.entries(computed.features)
        .filter(([, state]) => state.enabled && state.entitlement !== 'not_entitled')
        .map(([name]) => name),
    );
    return computed;
  }
}
