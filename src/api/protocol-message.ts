import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/**
 * Reads one JSON message of a WebSocket protocol: the message when it parses and follows the
 * schema, else what is wrong with it, in words a peer can act on.
 */
export function readProtocolMessage<T extends TSchema>(
  schema: T,
  text: string,
): { readonly message: Static<T> } | { readonly problem: string } {
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
