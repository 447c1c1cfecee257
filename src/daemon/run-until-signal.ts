import type { Logger } from 'pino';
import type { Daemon } from './daemon.js';

/**
 * Keeps the daemon running until SIGINT or SIGTERM, then shuts it down gracefully: no new
 * connections, requests in flight finish, the store closes. A second signal stops at once.
 */
export function runUntilSignal(daemon: Daemon, logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        logger.warn({ signal }, 'second signal: stopping now');
        process.exit(1);
      }
      stopping = true;
      logger.info({ signal }, 'shutting down gracefully');
      daemon
        .close()
        .catch((error: unknown) => logger.error({ err: error }, 'shutdown failed'))
        .finally(() => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          logger.info('stopped');
          resolve();
        });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
