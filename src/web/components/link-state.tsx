// The state of a user's link to an external auth provider, said the same way on every page.
import type { ExternalAuthLink } from '../../sdk/wire/index.js';
import { StatusBadge } from './status.js';

/** Why a link needs to be made again, or undefined when it does not (or there is none). */
export function relinkReason(link: ExternalAuthLink | undefined): string | undefined {
  if (!link || link.authenticated) return undefined;
  // The server's reason may say "re-link needed" itself; the pages say it once, before it.
  return link.validate_error.replace(/^re-link needed:\s*/i, '') || 'the provider no longer accepts the token';
}

/** Linked, not linked, or linked but needing a new link. */
export function LinkState({ linked, reason }: { linked: boolean; reason: string | undefined }) {
  if (linked) return <StatusBadge status="ok" label="Linked" />;
  if (reason) return <StatusBadge status="error" label="Re-link needed" />;
  return <StatusBadge status="off" label="Not linked" />;
}
