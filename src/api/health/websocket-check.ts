import type { WebsocketReport } from '../../sdk/wire/index.js';
import { verdict } from './health-severity.js';
import { dialProbe, ProbeDialError, roundTrip } from './probe-socket.js';

const TIMEOUT_MS = 10_000;

/**
 * Dials the daemon's echo WebSocket (`/api/v2/debug/ws`) through the access URL and sends "0",
 * "1", "2": a refused upgrade is EWS01, a failed exchange EWS02, a different answer EWS03, all
 * errors. `code` and `body` are the HTTP answer when the upgrade was refused.
 */
export async function checkWebsocket(accessUrl: string, probeKey: string): Promise<WebsocketReport> {
  const url = `${accessUrl}/api/v2/debug/ws`;
  let socket;
  try {
    socket = await dialProbe(url, probeKey, TIMEOUT_MS);
  } catch (error) {
    const refused = error instanceof ProbeDialError ? error : new ProbeDialError(String(error), 0, '');
    return {
      body: refused.body.slice(0, 1024),
      code: refused.status,
      ...verdict({ error: { code: 'EWS01', message: `Could not open a WebSocket to ${url}: ${refused.message}.` } }),
    };
  }
  try {
    for (const message of ['0', '1', '2']) {
      let answer: string;
      try {
        answer = await roundTrip(socket, message, TIMEOUT_MS);
      } catch (error) {
        return {
          body: '',
          code: 101,
          ...verdict({ error: { code: 'EWS02', message: `Echo of "${message}" failed: ${(error as Error).message}.` } }),
        };
      }
      if (answer !== message) {
        return {
          body: '',
          code: 101,
          ...verdict({ error: { code: 'EWS03', message: `Sent "${message}" and got "${answer.slice(0, 64)}" back.` } }),
        };
      }
    }
    return { body: '', code: 101, ...verdict({}) };
  } finally {
    socket.close(1000);
  }
}
