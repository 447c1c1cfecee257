import type { Logger } from 'pino';
import type { Daemon } from './daemon.js';
import { SHUTDOWN_LIMIT_MS } from './graceful-shutdown.js';

/**
 * Keeps the daemon running until SIGINT or SIGTERM, then shuts it down gracefully: no new
 * connections, WebSockets told the server is going away, requests in flight given a moment to
 * finish, the store closed. It ends within SHUTDOWN_LIMIT_MS of the signal: past that, whatever
 * still holds the process (a connection, a query) is abandoned. A second signal stops at once.
 */
export function runUntilSignal(daemon: Daemon, logger: Logger): Promise<void> {
  // Last resort, on top of handling every failure where it happens. A promise rejected with
  // nobody to hear it is work that has already failed: ending the process for it would not undo
  // it, and would turn one failed background step (a database hiccup, say) into an outage for
  // every user. It is logged as the bug it is. Uncaught exceptions still end the process: one
  // thrown mid-way may have left state half-changed.
  const unhandled = (reason: unknown) => logger.error({ err: reason }, 'unhandled promise rejection (a bug); the daemon goes on');
  process.on('unhandledRejection', unhandled);
  return new Promise((resolve) => {
    let stopping = false;
    let closed = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        logger.warn({ signal }, 'second signal: stopping now');
        process.exit(1);
      }
      stopping = true;
      logger.info({ signal }, 'shutting down gracefully');
      // Not cleared once closed: a handle left open after the close would keep the process alive too.
      // Unref'd, so a process with nothing left ends at once instead.
      setTimeout(() => {
        logger.warn({ ms: SHUTDOWN_LIMIT_MS, closed }, 'still running after the shutdown limit: stopping now');
        process.exit(closed ? (process.exitCode ?? 0) : 1);
      }, SHUTDOWN_LIMIT_MS).unref();
      daemon
        .close()
        .then(() => (closed = true))
        .catch((error: unknown) => logger.error({ err: error }, 'shutdown failed'))
        .finally(() => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          process.off('SIGHUP', reload);
          process.off('unhandledRejection', unhandled);
          logger.info('stopped');
          resolve();
        });
    };
    // SIGHUP asks for a reload (systemd's ExecReload); what can reload listens for it itself. Without
    // a listener Node would end the process, so this one only records that it came.
    const reload = () => logger.info({ signal: 'SIGHUP' }, 'reload requested');
    process.on('SIGHUP', reload);
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
