import { createServer } from 'node:net';

/** A loopback TCP port free at the time of asking, for a server a test starts as its own process. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('the listening socket has no port');
  return address.port;
}
