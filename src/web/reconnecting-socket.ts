// A live stream that outlasts a dropped connection: the dashboard's WebSockets (a workspace's watch,
// a page of workspaces, a job's log, the inbox) open again after a growing pause when they drop, tell the
// connection banner what they find, and open at once when someone asks to retry now.
import { onRetryConnection, reportConnectionBack, reportConnectionLost } from './connection-state.js';

/** What to do once a socket closed: open it again after a pause, or stop following. */
export type AfterClose = 'reconnect' | 'stop';

/** How one stream opens and what it makes of its messages and its end. */
export interface ReconnectingSocketOptions {
  /** The URL to open, asked again before each attempt (a log resumes after its last line). */
  readonly url: () => string;
  /** Each time a socket of the stream opens, the first time too. */
  readonly onOpen?: () => void;
  readonly onMessage: (data: string) => void;
  /**
   * Decides after a close the page did not ask for. `opened` tells whether this socket opened
   * before it closed; `everOpened` whether any socket of this stream did.
   */
  readonly onClose: (event: CloseEvent, opened: boolean, everOpened: boolean) => AfterClose;
}

/** The longest pause between two attempts. */
const MAX_PAUSE_MS = 10_000;

/** Opens the stream and follows it until the returned function is called or `onClose` says stop. */
export function reconnectingSocket(options: ReconnectingSocketOptions): () => void {
  let socket: WebSocket | undefined;
  let stopped = false;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  let everOpened = false;
  const open = () => {
    clearTimeout(retry);
    let opened = false;
    const current = new WebSocket(options.url());
    socket = current;
    current.onopen = () => {
      opened = true;
      everOpened = true;
      reportConnectionBack();
      options.onOpen?.();
    };
    current.onmessage = (event) => {
      failures = 0;
      options.onMessage(String(event.data));
    };
    current.onclose = (event) => {
      if (stopped || socket !== current) return;
      if (options.onClose(event, opened, everOpened) === 'stop') {
        stopped = true;
        return;
      }
      // A socket that never opened, or one the server did not close in order, means the server is out of reach.
      if (!opened || event.code !== 1000) reportConnectionLost();
      failures += 1;
      retry = setTimeout(open, Math.min(MAX_PAUSE_MS, 500 * 2 ** failures));
    };
  };
  open();
  // "Retry now": a stream waiting out its pause opens again at once (a live one is left alone).
  const stopRetrying = onRetryConnection(() => {
    if (stopped || socket?.readyState === WebSocket.OPEN || socket?.readyState === WebSocket.CONNECTING) return;
    failures = 0;
    open();
  });
  return () => {
    stopped = true;
    stopRetrying();
    clearTimeout(retry);
    socket?.close();
  };
}
