import { readFileSync } from 'node:fs';

/** When the system does not say: the most Linux allows by default since 5.4. */
const KERNEL_DEFAULT = 4096;

/**
 * How many connections the kernel may hold for a listener before the daemon accepts them: as many
 * as the system allows (`net.core.somaxconn`), as Go's servers ask. Node asks for 511, and more
 * clients than that connecting at once (a team's browsers after a restart, each opening several
 * connections) have their connection attempts dropped and retried by TCP a second, three, seven
 * seconds later: the scale bench's first seconds with 800 dashboard users answered in up to 7 s.
 */
export function listenBacklog(): number {
  try {
    const value = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8').trim());
    return Number.isInteger(value) && value > 0 ? value : KERNEL_DEFAULT;
  } catch {
    return KERNEL_DEFAULT;
  }
}
