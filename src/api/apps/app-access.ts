import type { Authenticated } from '../../domain/authentication.js';
import type { ShareLevel } from '../../domain/port-sharing.js';
import { HttpProblem } from '../../lib/errors.js';
import { memberOrgIds } from '../../rbac/index.js';
import { workspaceRbac } from '../../store/rbac-objects.js';
import type { WorkspaceRow } from '../../store/rows.js';
import type { ApiContext } from '../context.js';
import { authenticateToken, type RequestAuth } from '../plugins/authentication.js';

/**
 * Who opens an app: a signed-in user, or nobody. A token that does not authenticate makes the
 * caller anonymous, with the reason kept for the 401 a non-public app answers.
 */
export type AppViewer =
  { readonly kind: 'user'; readonly auth: RequestAuth } | { readonly kind: 'anonymous'; readonly refused?: HttpProblem };

/**
 * Optional authentication, for routes that public apps must serve to anyone: a token becomes a
 * user as on every authenticated route, and no token (or a bad one) an anonymous viewer.
 */
export async function viewerOf(context: ApiContext, token: string | undefined, ipAddress: string): Promise<AppViewer> {
  if (!token) return { kind: 'anonymous' };
  let authenticated: Authenticated;
  try {
    authenticated = await authenticateToken(context, token, ipAddress);
  } catch (error) {
    if (error instanceof HttpProblem && error.status === 401) return { kind: 'anonymous', refused: error };
    throw error;
  }
  return { kind: 'user', auth: { ...authenticated, store: context.store.as(authenticated.subject) } };
}

/** What a viewer gets from an app: the app, a request to sign in, or nothing (as if it did not exist). */
export type AppAccess = 'allowed' | 'sign-in' | 'hidden';

/**
 * The sharing-level decision (reference §6.1). Whoever may `application_connect` to the workspace
 * (its owner; site owners unless the deployment disables that) may open every app of it. Beyond
 * them: `authenticated` lets in every signed-in user, `organization` the members of the workspace's
 * organization, `public` everyone. Anyone else is told nothing exists, unless they are anonymous,
 * who are asked to sign in.
 */
export function appAccess(level: ShareLevel, workspace: WorkspaceRow, viewer: AppViewer): AppAccess {
  if (level === 'public') return 'allowed';
  if (viewer.kind === 'anonymous') return 'sign-in';
  const { store, subject } = viewer.auth;
  if (store.can('application_connect', workspaceRbac(workspace))) return 'allowed';
  if (level === 'authenticated') return 'allowed';
  if (level === 'organization' && memberOrgIds(subject).includes(workspace.organization_id)) return 'allowed';
  return 'hidden';
}

/** The 401 of a non-public app opened without a (working) session. */
export function signInProblem(viewer: AppViewer): HttpProblem {
  if (viewer.kind === 'anonymous' && viewer.refused) return viewer.refused;
  return new HttpProblem(401, 'You must be signed in to open this workspace app.', {
    detail:
      'Sign in with "cove login" and send the session token in the "Service-Session-Token" header or the ' +
      '"service_session_token" cookie, or ask the workspace owner to share the app publicly.',
  });
}
