import { WebSocket } from 'ws';

/** The header the daemon's own probes carry their in-process key in. */
export const HEALTH_PROBE_HEADER = 'x-cove-health-probe';

/** Why a probe socket could not be opened: the HTTP answer, when the upgrade was refused. */
export class ProbeDialError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(message);
  }
}

/** The ws:// or wss:// form of an http(s) URL. */
export function webSocketUrl(httpUrl: string): string {
  return httpUrl.replace(/^http/, 'ws');
}

/** Opens a WebSocket carrying the probe key; rejects with the answer when the upgrade is refused. */
export function dialProbe(url: string, key: string, timeoutMs: number): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(webSocketUrl(url), { headers: { [HEALTH_PROBE_HEADER]: key }, handshakeTimeout: timeoutMs });
    socket.once('open', () => {
      socket.removeAllListeners('error');
      socket.on('error', () => undefined);
      resolve(socket);
    });
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        reject(new ProbeDialError(`${url} answered ${response.statusCode} to the upgrade`, response.statusCode ?? 0, body)),
      );
      response.on('error', () => reject(new ProbeDialError(`${url} answered ${response.statusCode}`, response.statusCode ?? 0, body)));
    });
    socket.once('error', (error) => reject(new ProbeDialError(`could not dial ${url}: ${error.message}`, 0, '')));
  });
}

/** Sends `message` and waits for the next message back, within `timeoutMs`; returns it as text. */
export async function roundTrip(socket: WebSocket, message: string | Buffer, timeoutMs: number): Promise<string> {
  const answer = nextMessage(socket, timeoutMs);
  socket.send(message);
  return answer;
}

/** The next message the socket receives, as text, within `timeoutMs`; rejects when it closes first. */
export function nextMessage(socket: WebSocket, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (data: Buffer | ArrayBuffer | Buffer[]): void => {
      const buffer = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
      finish(undefined, buffer.toString('utf8'));
    };
    const onClose = (code: number, reason: Buffer): void =>
      finish(new Error(`the socket closed (${code}${reason.length > 0 ? ` ${reason.toString('utf8')}` : ''})`));
    const finish = (error: Error | undefined, text?: string): void => {
      clearTimeout(timer);
      socket.off('message', onMessage);
      socket.off('close', onClose);
      if (error) reject(error);
      else resolve(text ?? '');
    };
    socket.on('message', onMessage);
    socket.once('close', onClose);
  });
}
