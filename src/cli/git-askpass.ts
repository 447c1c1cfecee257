import { ApiError } from '../sdk/api-error.js';
import { CoveClient } from '../sdk/client.js';
import type { AgentExternalAuthResponse } from '../sdk/wire/index.js';
import { parseGitAskpassPrompt } from './git-askpass-prompt.js';
import type { CliIo } from './io.js';

/** How long one plain question to the deployment may take; the wait for a link has no limit. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Answers git's credential prompt as its GIT_ASKPASS program inside a workspace: asks the
 * deployment, as the workspace agent, for the token of the provider whose regex matches the
 * remote, and prints the username or the password git asked for. Returns the exit code.
 *
 * Not linked yet: says where to link. On a terminal it then waits until the user has linked, so
 * the `git clone` they typed goes on by itself; elsewhere (a script, a start-up script) it fails at
 * once, so the script's git fails with the link in its output instead of hanging. No provider
 * matches: exits 1 without a word, and git goes on with its other ways to get credentials.
 */
export async function runGitAskpass(prompt: string, io: CliIo): Promise<number> {
  const asked = parseGitAskpassPrompt(prompt);
  if (asked === undefined) {
    io.stderr.write(`cove cannot answer the git prompt "${prompt.trim()}": it names no http(s) remote.\n`);
    return 1;
  }
  const url = io.env['COVE_AGENT_URL'];
  const token = io.env['COVE_AGENT_TOKEN'];
  if (!url || !token) {
    io.stderr.write('cove answers git prompts only inside a workspace, where COVE_AGENT_URL and COVE_AGENT_TOKEN are set.\n');
    return 1;
  }
  const client = new CoveClient({ url, token, timeoutMs: REQUEST_TIMEOUT_MS });
  let answer: AgentExternalAuthResponse;
  try {
    answer = await client.agentExternalAuth({ match: asked.remote });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return 1;
    io.stderr.write(`cove could not get a git token for ${asked.remote}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  if (answer.url) {
    io.stderr.write(`You must link your ${providerOf(answer.url)} account to use this repository: ${answer.url}\n`);
    if (!(io.stderr as { isTTY?: boolean }).isTTY) return 1;
    io.stderr.write('Waiting until you have linked it (Ctrl+C to give up)...\n');
    answer = await waitForLink(new CoveClient({ url, token, timeoutMs: 0 }), asked.remote, io.interrupt);
    io.stderr.write('Linked: git goes on.\n');
  }
  const username = answer.username ?? '';
  const password = answer.password ?? '';
  // Providers that take the token as the username leave the password empty: git gets the username again.
  io.stdout.write(`${asked.kind === 'password' && password !== '' ? password : username}\n`);
  return 0;
}

/** The provider's id, the last segment of its link page `<deployment>/external-auth/<id>`. */
function providerOf(linkUrl: string): string {
  try {
    const segments = new URL(linkUrl).pathname.split('/').filter(Boolean);
    return decodeURIComponent(segments.at(-1) ?? 'git provider');
  } catch {
    return 'git provider';
  }
}

/**
 * Asks with `listen`, which the deployment holds open until the user links, again and again (a
 * dropped connection or a restarted deployment is waited out, backing off up to 10 s).
 */
async function waitForLink(client: CoveClient, remote: string, interrupt: AbortSignal | undefined): Promise<AgentExternalAuthResponse> {
  let delayMs = 250;
  for (;;) {
    if (interrupt?.aborted) throw new Error('interrupted while waiting for the link');
    try {
      const answer = await client.agentExternalAuth({ match: remote, listen: true });
      if (!answer.url) return answer;
    } catch {
      // Waited out below, as a transient failure.
    }
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    delayMs = Math.min(delayMs * 2, 10_000);
  }
}
