/**
 * The few HTML pages a browser sees around sign-in: a failed sign-in, and the page that hands a
 * signed-in user a token for the CLI. Plain HTML with every value escaped and no scripts.
 */

/** A sign-in method the page can offer, with the URL that starts it. */
export interface SignInLink {
  readonly label: string;
  readonly href: string;
  readonly iconUrl?: string;
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;line-height:1.5;color:#1d1d1f}
h1{font-size:1.4rem}code,pre{background:#f2f2f4;padding:.2rem .4rem;border-radius:4px}pre{padding:.8rem;overflow-x:auto;user-select:all}
.detail{color:#555}a.button,button{display:inline-block;margin:.3rem 0;padding:.5rem 1rem;border:1px solid #888;border-radius:6px;background:#fff;color:inherit;text-decoration:none;font:inherit;cursor:pointer}
img{height:1.1em;vertical-align:middle;margin-right:.4rem}`;

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/**
 * `same-origin`, not `no-referrer`: under `no-referrer` a browser sends `Origin: null` with the
 * page's own form post, which the origin check (src/api/origin-check.ts) must refuse. Other sites
 * (a provider's icon) still get no Referer, so a callback URL's code never leaves the deployment.
 */
function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="same-origin"><title>${escapeHtml(title)} - Cove</title><style>${STYLE}</style></head>
<body>${body}</body></html>
`;
}

function links(options: readonly SignInLink[]): string {
  return options
    .map(
      (option) =>
        `<p><a class="button" href="${escapeHtml(option.href)}">${option.iconUrl ? `<img alt="" src="${escapeHtml(option.iconUrl)}">` : ''}Sign in with ${escapeHtml(option.label)}</a></p>`,
    )
    .join('\n');
}

/** What a browser sees when a sign-in is refused: what went wrong, and a way to try again. */
export function signInFailedPage(
  problem: { readonly message: string; readonly detail?: string | undefined },
  retry: SignInLink | undefined,
): string {
  return page(
    'Sign-in failed',
    `<h1>Sign-in failed</h1>
<p>${escapeHtml(problem.message)}</p>
${problem.detail ? `<p class="detail">${escapeHtml(problem.detail)}</p>` : ''}
${retry ? links([retry]) : ''}`,
  );
}

/** The CLI sign-in page for a browser that is not signed in: the ways to sign in, each coming back here. */
export function cliAuthSignedOutPage(options: readonly SignInLink[], passwordEnabled: boolean): string {
  const none = options.length === 0 && !passwordEnabled;
  return page(
    'Sign in for the CLI',
    `<h1>Sign in for the Cove CLI</h1>
${options.length > 0 ? `<p>Sign in, then this page gives you a session token to paste into <code>cove login</code>.</p>\n${links(options)}` : ''}
${passwordEnabled ? `<p>With a password, run <code>cove login --email you@example.com</code> instead; it asks for the password itself.</p>` : ''}
${none ? '<p>This deployment offers no way to sign in. Ask an administrator.</p>' : ''}`,
  );
}

/** The CLI sign-in page for a signed-in browser: a button that creates a token (a POST, so a link cannot). */
export function cliAuthSignedInPage(username: string): string {
  return page(
    'Sign in for the CLI',
    `<h1>Sign in for the Cove CLI</h1>
<p>You are signed in as <strong>${escapeHtml(username)}</strong>.</p>
<form method="post" action="/cli-auth"><button type="submit">Create a session token for the CLI</button></form>`,
  );
}

/** The new token, shown once. */
export function cliAuthTokenPage(username: string, token: string, lifetime: string): string {
  return page(
    'Session token',
    `<h1>Your session token</h1>
<p>Paste this into the waiting <code>cove login</code> (or pass it with <code>--token</code>). It signs in as
<strong>${escapeHtml(username)}</strong> and expires in ${escapeHtml(lifetime)}. It is shown only once.</p>
<pre id="token">${escapeHtml(token)}</pre>`,
  );
}
