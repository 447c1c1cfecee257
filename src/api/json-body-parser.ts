import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpProblem } from '../lib/errors.js';

/** How deep arrays and objects may nest in a JSON body: far more than any route's schema takes. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text opens more than `limit` arrays or objects inside one another. One pass over
 * the characters, with no recursion and no parsing, so it is safe on any input: JSON.parse itself
 * copes with deep text, but what walks its result afterwards (validation, error messages,
 * JSON.stringify) recurses, and 5,000 levels overflow the stack. Brackets inside strings do not
 * count; text that is not JSON is left for the parser to refuse.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  // Fewer characters than the limit cannot open more arrays than it; most bodies end here.
  if (text.length <= limit) return false;
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22 /* " */) {
      // Strings are most of a large body (log output): jump to their end rather than step through.
      index = stringEnd(text, index);
      if (index < 0) return false;
    } else if (code === 0x5b /* [ */ || code === 0x7b /* { */) {
      if (++depth > limit) return true;
    } else if (code === 0x5d /* ] */ || code === 0x7d /* } */) {
      depth--;
    }
  }
  return false;
}

/** Where the string opened at `start` closes (its unescaped quote), or -1 when it never does. */
function stringEnd(text: string, start: number): number {
  let end = start;
  for (;;) {
    end = text.indexOf('"', end + 1);
    if (end < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === 0x5c /* \ */) backslashes++;
    if (backslashes % 2 === 0) return end;
  }
}

/** The answer to a body that nests too deep. */
export function tooDeepProblem(): HttpProblem {
  return new HttpProblem(400, `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`, {
    detail: `Arrays and objects in a JSON body may be nested at most ${MAX_JSON_DEPTH} levels deep.`,
  });
}

/**
 * Replaces fastify's JSON body parser with one that first refuses bodies nested deeper than
 * MAX_JSON_DEPTH, then parses as fastify does (empty and malformed bodies keep their errors,
 * `__proto__` keys stay refused). Registered on the root before any route plugin, so every scope
 * inherits it.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const { onProtoPoisoning, onConstructorPoisoning } = app.initialConfig;
  const parse = app.getDefaultJsonParser(onProtoPoisoning ?? 'error', onConstructorPoisoning ?? 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request: FastifyRequest, body: string | Buffer, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      done(tooDeepProblem(), undefined);
      return;
    }
    parse(request, text, done);
  });
}
