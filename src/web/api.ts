// The dashboard's client of /api/v2: fetch for requests, WebSockets for live streams. The browser
// carries the session in the `service_session_token` cookie the sign-in sets, so no token is
// handled here. Typed with the SDK's wire types; the SDK client itself is built on node:http.
import type { ProvisionerJobLog, Response as WireResponse, Workspace } from '../sdk/wire/index.js';
import { reportConnectionBack, reportConnectionLost } from './connection-state.js';
import { reconnectingSocket } from './reconnecting-socket.js';

/** An error answer of the API, with its `message`, `detail` and per-field `validations`. */
export class ApiError extends Error {
  readonly status: number;
  readonly detail: string;
  readonly validations: readonly { field: string; detail: string }[];

  constructor(status: number, body: Partial<WireResponse>) {
    super(body.message || `The server answered ${status}.`);
    this.name = 'ApiError';
    this.status = status;
    this.detail = body.detail ?? '';
    this.validations = body.validations ?? [];
  }
}

/** The event an API call dispatches on `window` when the server says the session is gone. */
export const SIGNED_OUT = 'cove:signed-out';

/** Query parameters; undefined ones are left out. */
export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

/**
 * Calls the API and returns its JSON answer (undefined for an empty one); throws ApiError on a 4xx/5xx.
 * `signedOutOk`: the call is also made without a session (the sign-in page), so its 401 says nothing
 * about a session ending.
 */
export async function api<T>(
  method: string,
  path: string,
  options: { body?: unknown; query?: Query; signedOutOk?: boolean } = {},
): Promise<T> {
  let response: globalThis.Response;
  try {
    response = await fetch(apiUrl(path, options.query), {
      method,
      credentials: 'same-origin',
      headers:
        options.body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
  } catch {
    reportConnectionLost();
    throw new ApiError(0, { message: 'The server could not be reached.', detail: 'Check your connection and that the deployment is up.' });
  }
  // Any answer, even an error, shows that the server is reachable.
  reportConnectionBack();
  const text = await response.text();
  if (!response.ok) {
    let body: Partial<WireResponse> = {};
    try {
      body = JSON.parse(text) as WireResponse;
    } catch {
      body = { message: `The server answered ${response.status} ${response.statusText}.` };
    }
    // A session that ended (expired, or signed out in another tab) sends the page to the sign-in.
    if (response.status === 401 && !options.signedOutOk) window.dispatchEvent(new Event(SIGNED_OUT));
    throw new ApiError(response.status, body);
  }
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** The URL of an API path, with its query. */
export function apiUrl(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const search = params.toString();
  return `/api/v2${path}${search ? `?${search}` : ''}`;
}

/** The WebSocket URL of an API path. */
export function socketUrl(path: string, query: Query = {}): string {
  const origin = location.origin.replace(/^http/, 'ws');
  return `${origin}${apiUrl(path, query)}`;
}

/** Stops a live stream. */
export type Unsubscribe = () => void;

/**
 * Follows a workspace over its watch-ws stream: `onChange` gets the workspace on connect and after
 * every change. A dropped stream is opened again after a pause (the server pushes; nothing polls).
 */
export function watchWorkspace(id: string, onChange: (workspace: Workspace) => void, onError?: (message: string) => void): Unsubscribe {
  return reconnectingSocket({
    url: () => socketUrl(`/workspaces/${encodeURIComponent(id)}/watch-ws`),
    onMessage: (data) => {
      const message = JSON.parse(data) as { type: string; data?: unknown };
      if (message.type === 'data') onChange(message.data as Workspace);
      else if (message.type === 'error') onError?.((message.data as { message?: string } | undefined)?.message ?? 'The watch failed.');
    },
    onClose: () => 'reconnect',
  });
}

/**
 * Follows a page of workspaces over one list stream (`/workspaces/watch-ws?ids=`): `onChange` gets
 * each of them on connect and after every change of it. A dropped stream is opened again after a
 * pause; a refused one (say, a workspace deleted meanwhile) is told to `onError` and not retried.
 */
export function watchWorkspaces(
  ids: readonly string[],
  onChange: (workspace: Workspace) => void,
  onError?: (message: string, workspaceId?: string) => void,
): Unsubscribe {
  if (ids.length === 0) return () => undefined;
  return reconnectingSocket({
    url: () => socketUrl('/workspaces/watch-ws', { ids: ids.join(',') }),
    onMessage: (data) => {
      const message = JSON.parse(data) as { type: string; workspace_id?: string; data?: unknown };
      if (message.type === 'data') onChange(message.data as Workspace);
      else if (message.type === 'error')
        onError?.((message.data as { message?: string } | undefined)?.message ?? 'The watch failed.', message.workspace_id);
    },
    onClose: (_event, opened) => {
      if (opened) return 'reconnect';
      onError?.('Could not follow these workspaces live.');
      return 'stop';
    },
  });
}

/**
 * Follows a provisioner job's logs over the logs WebSocket of a build or template version: the
 * lines so far (after `after`, when given), then each new one, until the job ends. A stream that
 * drops before then (the server restarting, the network gone) is opened again after a pause from
 * the last line it delivered, so nothing is shown twice or missed. A stream the server refuses
 * (never opened, or closed with a code of 4000 and up) ends with the reason.
 */
export function followJobLogs(
  path: string,
  onLog: (log: ProvisionerJobLog) => void,
  onEnd: (error?: string) => void,
  after?: number,
): Unsubscribe {
  let last = after;
  return reconnectingSocket({
    url: () => socketUrl(path, { follow: true, after: last }),
    onMessage: (data) => {
      const log = JSON.parse(data) as ProvisionerJobLog;
      last = log.id;
      onLog(log);
    },
    onClose: (event, _opened, everOpened) => {
      if (event.code === 1000) {
        onEnd();
        return 'stop';
      }
      // Only a stream that worked is followed again: one refused from the start (a build that is
      // not there, or not the reader's) or by the server's own code ends at once.
      if (event.code >= 4000 || !everOpened) {
        onEnd(event.reason || `The log stream closed (${event.code}).`);
        return 'stop';
      }
      return 'reconnect';
    },
  });
}

/** Resolves once a workspace's latest build is in one of `statuses` (followed live). */
export function untilStatus(id: string, statuses: readonly string[], signal?: AbortSignal): Promise<Workspace> {
  return new Promise((resolve, reject) => {
    const stop = watchWorkspace(id, (workspace) => {
      if (statuses.includes(workspace.latest_build.status)) {
        stop();
        resolve(workspace);
      } else if (workspace.latest_build.status === 'failed' && !statuses.includes('failed')) {
        stop();
        reject(new ApiError(0, { message: 'The build failed.', detail: workspace.latest_build.job.error ?? '' }));
      }
    });
    signal?.addEventListener('abort', () => {
      stop();
      reject(new ApiError(0, { message: 'Canceled.' }));
    });
  });
}

/**
 * Uploads a template archive (`POST /files`) as it is on disk and returns the file's id. A zip is
 * sent as one, and the server turns it into the tar that builds read.
 */
export async function uploadArchive(file: Blob & { readonly name?: string }): Promise<string> {
  const zip = file.type === 'application/zip' || /\.zip$/i.test(file.name ?? '');
  let response: globalThis.Response;
  try {
    response = await fetch(apiUrl('/files'), {
      method: 'POST',
      credentials: 'same-origin',
      headers: { accept: 'application/json', 'content-type': zip ? 'application/zip' : 'application/x-tar' },
      body: file,
    });
  } catch {
    throw new ApiError(0, { message: 'The server could not be reached.', detail: 'Check your connection and that the deployment is up.' });
  }
  const text = await response.text();
  let body: Partial<WireResponse & { hash: string }> = {};
  try {
    body = JSON.parse(text) as WireResponse & { hash: string };
  } catch {
    body = { message: `The server answered ${response.status} ${response.statusText}.` };
  }
  if (!response.ok || !body.hash) throw new ApiError(response.status, body);
  return body.hash;
}
