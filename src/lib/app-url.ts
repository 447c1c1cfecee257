/**
 * Schemes a browser does not leave the page for: it runs them (`javascript:`, `vbscript:`) or
 * shows what they hold as a page of its own (`data:`, `blob:`, `file:`). An app's URL becomes a
 * link in the dashboard, so none of them may ever be one.
 */
const NEVER_SCHEMES: ReadonlySet<string> = new Set(['javascript:', 'vbscript:', 'data:', 'blob:', 'file:']);

/** What an app URL is checked from. */
export interface AppUrlInput {
  readonly slug: string;
  readonly url: string;
  readonly external: boolean;
}

/**
 * Why an app's URL cannot be stored, or undefined when it can. An app the deployment proxies
 * needs an http or https URL (it is where the app listens in the workspace). An external app is
 * opened by the browser as it is: it may also name another application's scheme (`vscode://...`
 * opens the desktop editor, as the reference allows), but never one of NEVER_SCHEMES. The URL is
 * read as a browser reads it, so tabs, newlines and case cannot hide a scheme.
 */
export function appUrlProblem(app: AppUrlInput): string | undefined {
  // Command apps have no URL.
  if (app.url === '') return undefined;
  let protocol: string;
  try {
    protocol = new URL(app.url).protocol;
  } catch {
    return `app "${app.slug}" has a URL that is not absolute: "${app.url}"`;
  }
  if (NEVER_SCHEMES.has(protocol)) {
    return `app "${app.slug}" has a URL with the ${protocol} scheme, which is never allowed: app URLs must be http or https${app.external ? ' (or, for an external app, the scheme of a desktop application)' : ''}`;
  }
  if (!app.external && protocol !== 'http:' && protocol !== 'https:') {
    return `app "${app.slug}" has a URL with the ${protocol} scheme: apps the deployment proxies must have an http or https URL (set external: true for a link to a desktop application)`;
  }
  return undefined;
}
