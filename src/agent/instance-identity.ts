import { backoffDelay, sleep, type ReconnectBackoff } from '../lib/reconnect.js';
import { ApiError } from '../sdk/api-error.js';
import { CoveClient } from '../sdk/client.js';
import type { AgentLogger } from './agent-logger.js';
import type {
  AgentAuthResponse,
  AwsInstanceIdentityRequest,
  AzureInstanceIdentityRequest,
  GoogleInstanceIdentityRequest,
} from '../sdk/wire/instance-identity.js';

/** How `cove agent` authenticates: with the token it was given, or with its cloud instance identity. */
export const AGENT_AUTH_METHODS = ['token', 'aws-instance-identity', 'azure-instance-identity', 'google-instance-identity'] as const;
export type AgentAuthMethod = (typeof AGENT_AUTH_METHODS)[number];
export type InstanceIdentityMethod = Exclude<AgentAuthMethod, 'token'>;

/** Where each cloud's metadata service answers, from inside an instance. */
export const DEFAULT_METADATA_URLS: Readonly<Record<InstanceIdentityMethod, string>> = {
  'aws-instance-identity': 'http://169.254.169.254',
  'azure-instance-identity': 'http://169.254.169.254',
  'google-instance-identity': 'http://metadata.google.internal',
};

/** The audience the agent asks Google to put in its identity token; the daemon does not check it. */
export const GOOGLE_IDENTITY_AUDIENCE = 'cove';

/** How long one call to the metadata service or the daemon may take. */
const REQUEST_TIMEOUT_MS = 10_000;

export interface InstanceIdentityOptions {
  /** The deployment's base URL. */
  readonly url: string;
  readonly method: InstanceIdentityMethod;
  /** The metadata service's base URL; defaults to the cloud's own (`DEFAULT_METADATA_URLS`). */
  readonly metadataUrl?: string | undefined;
}

/** A metadata service or daemon answer that is not what was asked for. */
export class InstanceIdentityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InstanceIdentityError';
  }
}

async function metadata(url: string, init: { readonly method?: string; readonly headers: Record<string, string> }): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, { method: init.method ?? 'GET', headers: init.headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (error) {
    throw new InstanceIdentityError(`the metadata service at ${url} did not answer: ${(error as Error).message}`);
  }
  const text = await response.text();
  if (!response.ok)
    throw new InstanceIdentityError(
      `the metadata service answered ${response.status} to ${init.method ?? 'GET'} ${url}: ${text.slice(0, 200)}`,
    );
  return text;
}

/** The EC2 identity document and signature, through IMDSv2 (a session token first). */
export async function fetchAwsIdentity(base: string): Promise<AwsInstanceIdentityRequest> {
  const token = (
    await metadata(`${base}/latest/api/token`, { method: 'PUT', headers: { 'X-aws-ec2-metadata-token-ttl-seconds': '21600' } })
  ).trim();
  const headers = { 'X-aws-ec2-metadata-token': token };
  const signature = await metadata(`${base}/latest/dynamic/instance-identity/signature`, { headers });
  const document = await metadata(`${base}/latest/dynamic/instance-identity/document`, { headers });
  return { signature, document };
}

/** The Azure attested document: `{encoding, signature}`, a PKCS#7 in base64. */
export async function fetchAzureIdentity(base: string): Promise<AzureInstanceIdentityRequest> {
  const text = await metadata(`${base}/metadata/attested/document?api-version=2020-09-01`, { headers: { Metadata: 'true' } });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InstanceIdentityError('the attested document is not JSON');
  }
  const { encoding, signature } = (parsed ?? {}) as { encoding?: unknown; signature?: unknown };
  if (typeof encoding !== 'string' || typeof signature !== 'string')
    throw new InstanceIdentityError('the attested document has no encoding and signature');
  return { encoding, signature };
}

/** The GCE instance's identity token, in the full format that carries the instance id. */
export async function fetchGoogleIdentity(base: string): Promise<GoogleInstanceIdentityRequest> {
  const query = new URLSearchParams({ audience: GOOGLE_IDENTITY_AUDIENCE, format: 'full' });
  const token = await metadata(`${base}/computeMetadata/v1/instance/service-accounts/default/identity?${query.toString()}`, {
    headers: { 'Metadata-Flavor': 'Google' },
  });
  return { json_web_token: token.trim() };
}

/**
 * Fetches the instance's identity from its cloud's metadata service, exchanges it with the daemon
 * and returns the agent token the daemon issued. Throws InstanceIdentityError when the metadata
 * service fails, and the SDK's ApiError when the daemon refuses (its message says why).
 */
export async function authenticateWithInstanceIdentity(options: InstanceIdentityOptions): Promise<string> {
  const base = (options.metadataUrl || DEFAULT_METADATA_URLS[options.method]).replace(/\/+$/, '');
  const body =
    options.method === 'aws-instance-identity'
      ? await fetchAwsIdentity(base)
      : options.method === 'azure-instance-identity'
        ? await fetchAzureIdentity(base)
        : await fetchGoogleIdentity(base);
  const client = new CoveClient({ url: options.url });
  const answer = await client.request<AgentAuthResponse>('POST', `/workspaceagents/${options.method}`, { body });
  if (typeof answer?.session_token !== 'string' || answer.session_token === '')
    throw new InstanceIdentityError('the daemon answered without a session token');
  return answer.session_token;
}

/**
 * Whether a failed exchange may succeed later: the metadata service or the daemon was unreachable
 * or failed, or the daemon does not know the instance yet (its build is still running), or asked
 * to slow down. A refused identity (400, 401) stays refused.
 */
export function isRetryable(error: unknown): boolean {
  if (error instanceof ApiError) return error.status === 404 || error.status === 429 || error.status >= 500;
  return true;
}

/**
 * `authenticateWithInstanceIdentity` until it succeeds, waiting with backoff between attempts
 * that may succeed later. Returns undefined when `signal` aborts first; throws what cannot succeed.
 */
export async function waitForInstanceToken(
  options: InstanceIdentityOptions & { readonly logger: AgentLogger; readonly signal: AbortSignal; readonly backoff?: ReconnectBackoff },
): Promise<string | undefined> {
  const initialMs = options.backoff?.initialMs ?? 250;
  const maxMs = options.backoff?.maxMs ?? 10_000;
  for (let attempt = 0; !options.signal.aborted; attempt++) {
    try {
      return await authenticateWithInstanceIdentity(options);
    } catch (error) {
      const reason = error instanceof ApiError ? `${error.message}${error.detail ? ` ${error.detail}` : ''}` : (error as Error).message;
      if (!isRetryable(error)) throw error;
      options.logger.warn({ method: options.method, error: reason }, 'instance identity exchange failed; retrying');
      await sleep(backoffDelay(initialMs, maxMs, attempt), options.signal);
    }
  }
  return undefined;
}
