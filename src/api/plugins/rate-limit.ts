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
 * A hook counting requests per caller (the user when signed in, else the IP address) and path.
 * Registered after authentication where there is one, so signed-in users get their own buckets.
 */
export function rateLimitHook(limits: RateLimits, pick: (limits: RateLimits) => SlidingWindowLimiter | undefined): onRequestHookHandler {
  return (request, reply, done) => {
    const limiter = pick(limits);
    if (!limiter) return done();
    try {
      if (bypassed(request)) return done();
      const key = `${request.auth?.user.id ?? request.ip}:${request.url.split('?')[0] ?? ''}`;
      const decision = limiter.hit(key, limits.clock.now().getTime());
      setHeaders(reply, decision.limit, decision.remaining, decision.resetAt);
      if (!decision.allowed) {
        throw new HttpProblem(429, `You've been rate limited for sending more than ${limiter.limit} requests in 1m0s.`, {
          headers: { 'retry-after': '60' },
        });
      }
      done();
    } catch (error) {
      done(error as Error);
    }
  };
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
  void reply.headers({
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-reset': String(resetAt),
  });
}
