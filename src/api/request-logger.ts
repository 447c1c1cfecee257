import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** What of pino's logger the request logger asks before it makes a child; fastify's type lacks it. */
interface LevelAware {
  isLevelEnabled?(level: string): boolean;
}

/**
 * The logger of one request: the child fastify would make, made when the request first logs at
 * an enabled level. Making it on every request was a tenth of a small request's work (pino runs
 * the bindings through the redaction of `*.headers…` paths), and without --verbose hardly any
 * request logs.
 */
class RequestLogger implements FastifyBaseLogger {
  readonly #parent: FastifyBaseLogger & LevelAware;
  readonly #bindings: Bindings;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  get level(): string {
    return (this.#child ?? this.#parent).level;
  }

  set level(level: string) {
    this.#made().level = level;
  }

  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }

  error(...args: unknown[]): void {
    this.#log('error', args);
  }

  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }

  info(...args: unknown[]): void {
    this.#log('info', args);
  }

  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }

  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#made().child(bindings, options);
  }

  #made(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings);
    return this.#child;
  }

  #log(level: Level, args: unknown[]): void {
    if (this.#child === undefined && this.#parent.isLevelEnabled?.(level) === false) return;
    const child = this.#made();
    (child[level] as (...args: unknown[]) => void).apply(child, args);
  }
}

/** fastify's `childLoggerFactory`: a lazily made child, unless the route asks for a level or serializers of its own. */
export function requestLogger(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (Object.keys(options).length > 0) return parent.child(bindings, options);
  return new RequestLogger(parent, bindings);
}

/**
 * fastify's own per-request log lines for a log that keeps only warnings and errors: the
 * "incoming request" and "request completed" lines are at info level and would be dropped, yet
 * fastify would still build their arguments (and time the answer) on every request. A request that
 * failed while answering is still logged, at error level, as fastify does.
 */
export class QuietRequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) super.requestCompleted(error, request, reply);
  }
}

/** fastify's own request log, which first settles `request.ip` (it logs before the hooks that would). */
class AddressedRequestLogController extends LogController {
  readonly #settle: (request: FastifyRequest) => void;

  constructor(settle: (request: FastifyRequest) => void) {
    super();
    this.#settle = settle;
  }

  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    this.#settle(request);
    super.incomingRequest(request, reply);
  }
}

/**
 * How fastify logs, on the daemon's `logger`. With `logRequests` (--verbose), each request at info
 * level. Otherwise only warnings and errors reach the log, and fastify is given no logger of its
 * own: with one it would time every answer (listeners on each response's end) for a completion
 * line the log drops. Requests still log what they must (`request.log`, errors of failed answers
 * among them) through a child of the daemon's logger at warn level.
 */
export function fastifyLogging(
  logger: FastifyBaseLogger,
  logRequests: boolean,
  settleClientAddress?: (request: FastifyRequest) => void,
): Pick<FastifyServerOptions, 'loggerInstance' | 'childLoggerFactory' | 'logController'> {
  if (logRequests) {
    const logController = settleClientAddress ? new AddressedRequestLogController(settleClientAddress) : undefined;
    return { loggerInstance: logger, childLoggerFactory: requestLogger, ...(logController ? { logController } : {}) };
  }
  const quiet = logger.child({}, { level: 'warn' });
  return {
    childLoggerFactory: (_noLogger, bindings, options) => requestLogger(quiet, bindings, options),
    logController: new QuietRequestLogController(),
  };
}
