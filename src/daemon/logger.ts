import { Writable } from 'node:stream';
import { pino, type Logger, type LoggerOptions, type DestinationStream, type StreamEntry } from 'pino';
import { redactUrl } from '../lib/redact-url.js';

const LEVELS: Readonly<Record<number, string>> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const DEBUG_LEVEL = 20;
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

/** Where the daemon's log lines go, and which. */
export interface LogOutputs {
  /** File of readable lines; empty for none. `/dev/stderr` and `/dev/stdout` are the process's own streams. */
  readonly human: string;
  /** File of JSON lines; empty for none. */
  readonly json: string;
  readonly verbose: boolean;
  /** Regular expressions a debug line must match to be written; any one implies `verbose`. */
  readonly filter?: readonly string[];
}

/** The daemon's structured logger: readable lines, JSON lines, or both to different files. */
export function createLogger(options: LogOutputs): Logger {
  const filter = (options.filter ?? []).map((source) => new RegExp(source));
  const level = options.verbose || filter.length > 0 ? 'debug' : 'info';
  const streams: StreamEntry[] = [];
  if (options.human !== '') streams.push({ level, stream: humanStream(destination(options.human)) });
  if (options.json !== '') streams.push({ level, stream: destination(options.json) });
  if (streams.length === 0) return silentLogger();
  return pino(
    {
      level,
      base: undefined,
      ...PRIVATE,
      // As the reference's filter: debug lines are kept only when they match; other levels always are.
      ...(filter.length > 0 ? { hooks: { logMethod: filterDebug(filter) } } : {}),
    },
    streams.length === 1 ? streams[0]!.stream : pino.multistream(streams),
  );
}

function filterDebug(filter: readonly RegExp[]): NonNullable<NonNullable<LoggerOptions['hooks']>['logMethod']> {
  return function (this: Logger, args, method, level) {
    if (level === DEBUG_LEVEL) {
      const text = args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' ');
      if (!filter.some((pattern) => pattern.test(text))) return;
    }
    method.apply(this, args);
  };
}

/** The process's own stream for its device path, or the file, appended to and created with its directory. */
function destination(path: string): DestinationStream {
  if (path === '/dev/stderr') return process.stderr;
  if (path === '/dev/stdout') return process.stdout;
  // Synchronous: the lines of a daemon that stops on an error are all in the file.
  return pino.destination({ dest: path, mkdir: true, append: true, sync: true });
}

/** A logger that writes nothing, for tests and benchmarks. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

function humanStream(out: DestinationStream): Writable {
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
