import { Type, type Static } from '@sinclair/typebox';

/** `POST /applications/reconnecting-pty-signed-token`: the terminal socket's URL and its agent. */
export const IssueReconnectingPTYSignedTokenRequest = Type.Object({
  url: Type.String({ minLength: 1 }),
  agentID: Type.String(),
});
export type IssueReconnectingPTYSignedTokenRequest = Static<typeof IssueReconnectingPTYSignedTokenRequest>;

export const IssueReconnectingPTYSignedTokenResponse = Type.Object({ signed_token: Type.String() });
export type IssueReconnectingPTYSignedTokenResponse = Static<typeof IssueReconnectingPTYSignedTokenResponse>;
