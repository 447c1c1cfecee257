import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-body-parser.js';

/**
 * Reads one JSON message of a WebSocket protocol: the message when it parses and follows the
 * schema, else what is wrong with it, in words a peer can act on.
 */
export function readProtocolMessage<T extends TSchema>(
  schema: T,
  text: string,
): { readonly message: Static<T> } | { readonly problem: string } {
  // As for request bodies: what reads a parsed message (the schema check, its error list) recurses.
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return { problem: `a message nests deeper than ${MAX_JSON_DEPTH} levels` };
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { problem: 'a message is not valid JSON' };
  }
  if (Value.Check(schema, message)) return { message };
  const first = [...Value.Errors(schema, message)][0];
  return { problem: `a message does not follow the protocol${first ? `: ${first.path} ${first.message}` : ''}` };
}
