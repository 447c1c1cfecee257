import type { CliIo } from './io.js';

/** Everything on standard input, up to its end (a license or a state file piped in). */
export async function readStdin(io: CliIo): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}
