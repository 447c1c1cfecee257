import type { FastifyInstance } from 'fastify';
import { issueInstanceAgentToken, verifyInstanceIdentity, type InstanceIdentityProof } from '../../domain/instance-identity/exchange.js';
import { loadInstanceIdentityTrust } from '../../domain/instance-identity/trust.js';
import {
  AgentAuthResponse,
  AwsInstanceIdentityRequest,
  AzureInstanceIdentityRequest,
  GoogleInstanceIdentityRequest,
} from '../../sdk/wire/index.js';
import type { ApiContext } from '../context.js';
import { rateLimitHook } from '../plugins/rate-limit.js';

/**
 * `POST /workspaceagents/{aws,azure,google}-instance-identity`: an agent on a cloud machine, which
 * has no token yet, proves which instance it runs on and gets an agent token (reference §1.2).
 * No session is needed, so they are rate limited per IP address like other anonymous routes. The
 * trusted certificates are read once, here, so a bad setting stops the daemon from starting.
 */
export async function instanceIdentityRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  const trust = await loadInstanceIdentityTrust(context.values);
  app.addHook(
    'onRequest',
    rateLimitHook(context.rateLimits, (limits) => limits.api),
  );

  const exchange = async (proof: InstanceIdentityProof): Promise<AgentAuthResponse> => {
    const instanceId = verifyInstanceIdentity(trust, proof, context.store.clock.now());
    return { session_token: await issueInstanceAgentToken(context.store, instanceId) };
  };
  const schema = (body: object) => ({ body, response: { 200: AgentAuthResponse } });

  app.post('/workspaceagents/aws-instance-identity', { schema: schema(AwsInstanceIdentityRequest) }, async (request) => {
    const body = request.body as AwsInstanceIdentityRequest;
    return exchange({ cloud: 'aws', document: body.document, signature: body.signature });
  });

  app.post('/workspaceagents/azure-instance-identity', { schema: schema(AzureInstanceIdentityRequest) }, async (request) =>
    exchange({ cloud: 'azure', signature: (request.body as AzureInstanceIdentityRequest).signature }),
  );

  app.post('/workspaceagents/google-instance-identity', { schema: schema(GoogleInstanceIdentityRequest) }, async (request) =>
    exchange({ cloud: 'google', jsonWebToken: (request.body as GoogleInstanceIdentityRequest).json_web_token }),
  );
}
