import type { IncomingMessage } from 'node:http';
import { ApiError } from './api-error.js';
import { parseErrorBody } from './client-core.js';
import { openHttpRequest } from './http-transport.js';

/**
 * Reads a server-sent event stream of `/api/v2` (`path` under it) with the client's headers (its
 * token and any extra ones): `onEvent` gets each event's type and its `data` line, until the
 * stream ends or `signal` aborts. A refused stream throws its ApiError.
 */
export async function readEventStream(
  client: { readonly url: string; baseHeaders(): Record<string, string> },
  path: string,
  onEvent: (event: string, data: string) => void,
  signal: AbortSignal,
): Promise<void> {
  const headers: Record<string, string> = { ...client.baseHeaders(), accept: 'text/event-stream' };
  const url = new URL(`${client.url}/api/v2${path}`);
  let response: IncomingMessage;
  try {
    response = await openHttpRequest(url, { method: 'GET', headers, signal });
  } catch (error) {
    if (signal.aborted) return;
    throw error;
  }
  if (response.statusCode !== 200) {
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    const status = response.statusCode ?? 0;
    throw new ApiError(status, 'GET', url.toString(), parseErrorBody(Buffer.concat(chunks).toString('utf8'), status));
  }
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of response) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(frame)?.[1];
        if (event !== undefined) onEvent(event, /^data: (.*)$/m.exec(frame)?.[1] ?? '');
      }
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
}
