import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
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
import { SYSTEM_SUBJECTS } from '../../rbac/system-subjects.js';

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

  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  const exchange = async (proof: InstanceIdentityProof): Promise<AgentAuthResponse> => {
    const instanceId = verifyInstanceIdentity(trust, proof, context.store.clock.now());
    // The caller has no token yet, so there is no user (or agent) subject: the proof of the
    // instance is what authorizes finding its agent and giving it a new token.
    const store = context.store.as(SYSTEM_SUBJECTS.instanceIdentity);
    return { session_token: await issueInstanceAgentToken(store, instanceId) };
  };
  const response = { 200: AgentAuthResponse };

  api.post('/workspaceagents/aws-instance-identity', { schema: { body: AwsInstanceIdentityRequest, response } }, async (request) =>
    exchange({ cloud: 'aws', document: request.body.document, signature: request.body.signature }),
  );

  api.post('/workspaceagents/azure-instance-identity', { schema: { body: AzureInstanceIdentityRequest, response } }, async (request) =>
    exchange({ cloud: 'azure', signature: request.body.signature }),
  );

  api.post('/workspaceagents/google-instance-identity', { schema: { body: GoogleInstanceIdentityRequest, response } }, async (request) =>
    exchange({ cloud: 'google', jsonWebToken: request.body.json_web_token }),
  );
}
