import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

const LEVELS: Readonly<Record<number, string>> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const OMIT = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

/** The daemon's structured logger: JSON lines, or one readable line per entry for people. */
export function createLogger(options: { readonly json: boolean; readonly verbose: boolean }): Logger {
  const level = options.verbose ? 'debug' : 'info';
  if (options.json) return pino({ level, base: undefined }, process.stderr);
  return pino({ level, base: undefined }, humanStream(process.stderr));
}

/** A logger that writes nothing, for tests and benchmarks. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

function humanStream(out: NodeJS.WritableStream): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        out.write(`${formatLine(line)}\n`);
      }
      done();
    },
  });
}

function formatLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = new Date(Number(entry['time'] ?? Date.now())).toISOString();
  const level = (LEVELS[Number(entry['level'])] ?? 'INFO').padEnd(5);
  const fields = Object.entries(entry)
    .filter(([key]) => !OMIT.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return [time, level, String(entry['msg'] ?? ''), ...fields].join(' ').trimEnd();
}
