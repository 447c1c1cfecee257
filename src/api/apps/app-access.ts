import type { DeploymentValues } from '../../domain/deployment-options.js';
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

/**
 * What a viewer gets from an app: the app, a request to sign in, nothing (as if it did not exist),
 * or, for a path app the viewer could open on its subdomain, a refusal that says so.
 */
export type AppAccess = 'allowed' | 'sign-in' | 'hidden' | 'path-refused';

/** How an app was reached, and what the operator opened up for path apps. */
export interface AppAccessRules {
  /** Reached as `/@owner/workspace/apps/...`: its pages run on the deployment's own origin. */
  readonly pathApp: boolean;
  /** `--dangerous-allow-path-app-sharing`: sharing levels apply to path apps too. */
  readonly allowPathAppSharing: boolean;
  /** `--dangerous-allow-path-app-site-owner-access`: those with a site-wide grant may open others' path apps. */
  readonly allowPathAppSiteOwnerAccess: boolean;
}

/** The deployment's rules for whether an app reached as `pathApp` opens for others than its owner. */
export function appAccessRules(values: DeploymentValues, pathApp: boolean): AppAccessRules {
  return {
    pathApp,
    allowPathAppSharing: values.dangerousAllowPathAppSharing,
    allowPathAppSiteOwnerAccess: values.dangerousAllowPathAppSiteOwnerAccess,
  };
}

/**
 * Who may open an app. Subdomain apps follow their sharing level (see {@link sharingAccess}).
 * A path app's pages share the dashboard's origin, so a script in them acts with the visitor's
 * session (it could create an API key for them): only the workspace's owner, who runs that code
 * anyway, may open it, unless the operator opts into danger. Without the sharing option every
 * path app counts as shared with its owner only; without the site-owner option, an app at that
 * level is refused to everyone but the owner, whatever their roles (as the reference does).
 */
export function appAccess(level: ShareLevel, workspace: WorkspaceRow, viewer: AppViewer, rules: AppAccessRules): AppAccess {
  if (!rules.pathApp) return sharingAccess(level, workspace, viewer);
  if (viewer.kind === 'user' && viewer.auth.subject.id === workspace.owner_id) return sharingAccess(level, workspace, viewer);
  const pathLevel: ShareLevel = rules.allowPathAppSharing ? level : 'owner';
  if (viewer.kind === 'anonymous') return sharingAccess(pathLevel, workspace, viewer);
  const refusedAsOthers = pathLevel === 'owner' && !rules.allowPathAppSiteOwnerAccess;
  const access = refusedAsOthers ? 'hidden' : sharingAccess(pathLevel, workspace, viewer);
  if (access !== 'hidden') return access;
  // Refused here but served on a subdomain: the viewer may already open this app there, so saying
  // why reveals nothing its sharing level does not; everyone else gets the usual 404.
  return sharingAccess(level, workspace, viewer) === 'allowed' ? 'path-refused' : 'hidden';
}

/**
 * The sharing-level decision (reference §6.1). Whoever may `application_connect` to the workspace
 * (its owner; site owners unless the deployment disables that) may open every app of it. Beyond
 * them: `authenticated` lets in every signed-in user, `organization` the members of the workspace's
 * organization, `public` everyone. Anyone else is told nothing exists, unless they are anonymous,
 * who are asked to sign in.
 */
function sharingAccess(level: ShareLevel, workspace: WorkspaceRow, viewer: AppViewer): 'allowed' | 'sign-in' | 'hidden' {
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

/**
 * The 403 of a signed-in viewer refused only because the app is reached by path. `subdomainUrl`
 * is where the same viewer may open it, when the deployment has a wildcard access URL.
 */
export function pathAppProblem(workspace: WorkspaceRow, viewer: AppViewer, subdomainUrl: string | undefined): HttpProblem {
  const message = "Only the workspace's owner may open its apps by path.";
  const why = "A path app runs on the deployment's own origin, where its pages could act with your session.";
  if (subdomainUrl !== undefined)
    return new HttpProblem(403, message, { detail: `${why} Open it on its subdomain instead: ${subdomainUrl}` });
  const siteWide = viewer.kind === 'user' && viewer.auth.store.can('application_connect', workspaceRbac(workspace));
  const option = siteWide ? '--dangerous-allow-path-app-site-owner-access' : '--dangerous-allow-path-app-sharing';
  return new HttpProblem(403, message, {
    detail:
      `${why} This deployment serves apps by path only: ask its operator to serve them on subdomains ` +
      `(--wildcard-access-url), where sharing is safe, or to accept that risk with ${option}.`,
  });
}
