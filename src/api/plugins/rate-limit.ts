import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { HttpProblem } from '../../lib/errors.js';
import type { DeploymentValues } from '../../domain/deployment-options.js';
import type { Clock } from '../../lib/clock.js';
import { SlidingWindowLimiter } from '../rate-limiter.js';

/** Header with which an owner skips rate limits, e.g. for a load test or a bulk import. */
export const BYPASS_HEADER = 'x-cove-bypass-ratelimit';

/** Requests a minute on sign-in and password routes; fixed, like the reference's. */
export const LOGIN_RATE_LIMIT = 60;

/** The limiters of one daemon. A limiter of undefined is disabled. */
export interface RateLimits {
  readonly api: SlidingWindowLimiter | undefined;
  readonly login: SlidingWindowLimiter | undefined;
  readonly clock: Clock;
}

/** Builds the limiters from the settings: `rate_limit.api`, and `rate_limit.disable_all` turning all off. */
export function createRateLimits(values: DeploymentValues, clock: Clock): RateLimits {
  const make = (limit: number) => (values.rateLimitDisableAll || limit <= 0 ? undefined : new SlidingWindowLimiter(limit));
  return { api: make(values.rateLimitApi), login: make(LOGIN_RATE_LIMIT), clock };
}

/**
 * A hook counting requests per caller (the user when signed in, else the IP address) and resource.
 * Registered after authentication where there is one, so signed-in users get their own buckets.
 */
export function rateLimitHook(limits: RateLimits, pick: (limits: RateLimits) => SlidingWindowLimiter | undefined): onRequestHookHandler {
  // The limiters are made once, with the daemon: a disabled one stays disabled.
  const limiter = pick(limits);
  if (!limiter) return (_request, _reply, done) => done();
  return (request, reply, done) => {
    try {
      countRequest(limiter, limits.clock.now().getTime(), request, reply);
      done();
    } catch (error) {
      done(error as Error);
    }
  };
}

/**
 * Counts one request against `limiter` and sets the `x-ratelimit-*` headers; throws the 429 when
 * over the limit, or the 428 when a caller who is not an owner asks to skip it. For hooks that do
 * more than count (authentication), so that a request pays for one hook rather than two.
 */
export function countRequest(limiter: SlidingWindowLimiter, nowMs: number, request: FastifyRequest, reply: FastifyReply): void {
  if (bypassed(request)) return;
  const decision = limiter.hit(`${request.auth?.user.id ?? request.ip}:${resourceKeyOf(request)}`, nowMs);
  setHeaders(reply, decision.limit, decision.remaining, decision.resetAt);
  if (!decision.allowed) {
    throw new HttpProblem(429, `You've been rate limited for sending more than ${limiter.limit} requests in 1m0s.`, {
      headers: { 'retry-after': '60' },
    });
  }
}

/**
 * What a request is counted against: the route it matched (fastify's pattern, such as
 * `/api/v2/users/:user`) and its parameters as the router decoded them, in lower case. Counting
 * the raw path would give every spelling of one path (percent-encoded letters, a query string)
 * a bucket of its own, and so as many times the limit.
 */
export function resourceKeyOf(request: FastifyRequest): string {
  const route = request.routeOptions.url;
  if (route === undefined) return `unmatched:${request.url.split('?')[0] ?? ''}`;
  const params = request.params as Record<string, unknown> | undefined;
  let key = route;
  // One key for letter-case variants: user names, ids and slugs name the same thing in any case.
  if (params) for (const name in params) key += `\n${String(params[name]).toLowerCase()}`;
  return key;
}

function bypassed(request: FastifyRequest): boolean {
  const header = request.headers[BYPASS_HEADER];
  if (typeof header !== 'string' || !['true', '1'].includes(header.toLowerCase())) return false;
  const isOwner = request.auth?.subject.roles.some((role) => role.name === 'owner' && role.organization_id === '') ?? false;
  if (!isOwner) {
    throw new HttpProblem(428, `"X-Cove-Bypass-Ratelimit" provided but user is not owner.`, {
      detail: 'Only owners may skip rate limits; send the request without the header.',
    });
  }
  return true;
}

function setHeaders(reply: FastifyReply, limit: number, remaining: number, resetAt: number): void {
  void reply.header('x-ratelimit-limit', String(limit));
  void reply.header('x-ratelimit-remaining', String(remaining));
  void reply.header('x-ratelimit-reset', String(resetAt));
}
