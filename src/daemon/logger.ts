import { Writable } from 'node:stream';
import { pino, type Logger, type LoggerOptions } from 'pino';
import { redactUrl } from '../lib/redact-url.js';

const LEVELS: Readonly<Record<number, string>> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const OMIT = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

/** The parts of an HTTP request a log line shows. */
interface LoggedRequest {
  readonly method?: string;
  readonly url?: string;
  readonly host?: string;
  readonly ip?: string;
  readonly socket?: { readonly remotePort?: number };
}

/**
 * Never a credential in a log line: request URLs lose token query parameters, and the headers that
 * carry sessions (cookies, the session header, Authorization) are censored wherever they appear.
 * The request serializer replaces fastify's default one, which logs the whole URL.
 */
const PRIVATE: Pick<LoggerOptions, 'serializers' | 'redact' | 'formatters'> = {
  formatters: {
    // Plugins log paths of their own (`path=/api/v2/...?service_session_token=...`).
    log: (entry) => {
      for (const [key, value] of Object.entries(entry)) {
        if (typeof value === 'string' && value.includes('?')) entry[key] = redactUrl(value);
      }
      return entry;
    },
  },
  serializers: {
    req: (request: LoggedRequest) => ({
      method: request.method,
      url: request.url === undefined ? undefined : redactUrl(request.url),
      host: request.host,
      remoteAddress: request.ip,
      remotePort: request.socket?.remotePort,
    }),
  },
  redact: {
    paths: [
      'headers.cookie',
      'headers.authorization',
      'headers["service-session-token"]',
      'headers["set-cookie"]',
      '*.headers.cookie',
      '*.headers.authorization',
      '*.headers["service-session-token"]',
      '*.headers["set-cookie"]',
    ],
    censor: '[redacted]',
  },
};

/** The daemon's structured logger: JSON lines, or one readable line per entry for people. */
export function createLogger(options: { readonly json: boolean; readonly verbose: boolean }): Logger {
  const level = options.verbose ? 'debug' : 'info';
  if (options.json) return pino({ level, base: undefined, ...PRIVATE }, process.stderr);
  return pino({ level, base: undefined, ...PRIVATE }, humanStream(process.stderr));
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
