/** What git asks its GIT_ASKPASS program for: the username or the password of a remote. */
export interface GitAskpassPrompt {
  readonly kind: 'username' | 'password';
  /** The user git already has for the remote (in `Password for 'https://user@host': `), else empty. */
  readonly user: string;
  /** The remote without its user: `https://host` (git never puts the path of an http remote in a prompt). */
  readonly remote: string;
}

/**
 * Whether cove was started by git as its GIT_ASKPASS program rather than by a person: one argument,
 * a credential prompt, and the GIT_PREFIX that git sets for the programs it runs. The agent points
 * GIT_ASKPASS at cove itself because git runs that program with the prompt as its only argument and
 * no way to add a subcommand. Cheap on purpose: every start of the CLI runs it.
 */
export function isGitAskpassCall(args: readonly string[], env: Readonly<Record<string, string | undefined>>): boolean {
  const [prompt] = args;
  if (args.length !== 1 || prompt === undefined) return false;
  if (!prompt.startsWith('Username ') && !prompt.startsWith('Password ')) return false;
  return env['GIT_PREFIX'] !== undefined;
}

/**
 * Reads a prompt as git's credential code words it (`Username for 'https://host': `), or returns
 * undefined for one that names no http(s) remote, which cove cannot answer.
 */
export function parseGitAskpassPrompt(prompt: string): GitAskpassPrompt | undefined {
  const words = prompt.trim().split(/\s+/);
  const [kind, , quoted] = words;
  if (words.length < 3 || (kind !== 'Username' && kind !== 'Password') || quoted === undefined) return undefined;
  // Editors' own askpass programs quote the remote differently; strip quotes and the trailing colon alike.
  const text = quoted.replace(/^["']+|["':]+$/g, '');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.host === '') return undefined;
  const user = decodeURIComponent(url.username);
  url.username = '';
  url.password = '';
  // URL keeps a lone `/` as the path of a bare origin; git's prompt has none.
  const remote = url.pathname === '/' && !text.endsWith('/') ? url.origin : url.href;
  return { kind: kind === 'Username' ? 'username' : 'password', user, remote };
}
