import type { AuthorizedStore } from '../store/authorized-store.js';
import type { WorkspaceRow } from '../store/rows.js';

/** The built-in ways to use a workspace that insights count, besides its apps. */
export const SESSION_KINDS = ['vscode', 'jetbrains', 'reconnecting_pty', 'ssh', 'sftp'] as const;
export type SessionKind = (typeof SESSION_KINDS)[number];

/** One way a workspace was used in a minute: a kind of session, or an app of its agent. */
export type UsageKind =
  { readonly kind: SessionKind } | { readonly kind: 'app'; readonly slug: string; readonly displayName: string; readonly icon: string };

/** The session counts of an agent's stats report. */
export interface SessionCounts {
  readonly session_count_ssh: number;
  readonly session_count_reconnecting_pty: number;
  readonly session_count_vscode: number;
  readonly session_count_jetbrains: number;
}

/** Whole minutes since the Unix epoch, the unit usage is recorded in. */
export function epochMinute(at: Date): number {
  return Math.floor(at.getTime() / 60_000);
}

/** The kinds of session an agent reports open. */
export function openSessionKinds(stats: SessionCounts): SessionKind[] {
  const open: SessionKind[] = [];
  if (stats.session_count_vscode > 0) open.push('vscode');
  if (stats.session_count_jetbrains > 0) open.push('jetbrains');
  if (stats.session_count_reconnecting_pty > 0) open.push('reconnecting_pty');
  if (stats.session_count_ssh > 0) open.push('ssh');
  return open;
}

/**
 * Records that the workspace's owner used it in these ways in the minute of `now`, with the
 * agent's connection latency when one was reported (0 otherwise). The store's subject must be
 * able to update the workspace.
 */
export async function recordUsageMinute(
  store: AuthorizedStore,
  workspace: WorkspaceRow,
  uses: readonly UsageKind[],
  now: Date,
  latencyMs = 0,
): Promise<void> {
  const minute = epochMinute(now);
  await store.insights.recordUsageMinutes(
    workspace,
    uses.map((use) => ({
      minute,
      kind: use.kind,
      app_slug: use.kind === 'app' ? use.slug : '',
      app_display_name: use.kind === 'app' ? use.displayName : '',
      app_icon: use.kind === 'app' ? use.icon : '',
      latency_ms: Number.isFinite(latencyMs) && latencyMs > 0 ? latencyMs : 0,
    })),
  );
}
