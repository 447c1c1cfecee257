import { Type, type Static } from '@sinclair/typebox';

/** `POST /workspaceagents/aws-instance-identity`: the EC2 identity document (raw JSON text) and its base64 signature. */
export const AwsInstanceIdentityRequest = Type.Object({
  document: Type.String({ minLength: 1 }),
  signature: Type.String({ minLength: 1 }),
});
export type AwsInstanceIdentityRequest = Static<typeof AwsInstanceIdentityRequest>;

/** `POST /workspaceagents/azure-instance-identity`: the attested document as Azure's metadata service answers it. */
export const AzureInstanceIdentityRequest = Type.Object({
  /** Always `pkcs7`; not read. */
  encoding: Type.String({ minLength: 1 }),
  /** Base64 of a PKCS#7 SignedData. */
  signature: Type.String({ minLength: 1 }),
});
export type AzureInstanceIdentityRequest = Static<typeof AzureInstanceIdentityRequest>;

/** `POST /workspaceagents/google-instance-identity`: the instance's identity token (format=full). */
export const GoogleInstanceIdentityRequest = Type.Object({
  json_web_token: Type.String({ minLength: 1 }),
});
export type GoogleInstanceIdentityRequest = Static<typeof GoogleInstanceIdentityRequest>;

/** The answer of the three exchanges: a token the agent then uses as its agent token. */
export const AgentAuthResponse = Type.Object({ session_token: Type.String() });
export type AgentAuthResponse = Static<typeof AgentAuthResponse>;
