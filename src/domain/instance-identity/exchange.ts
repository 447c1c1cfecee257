import { createHash, randomUUID } from 'node:crypto';
import { HttpProblem } from '../../lib/errors.js';
import type { AuthorizedStore } from '../../store/authorized-store.js';
import { verifyAwsIdentity } from './aws.js';
import { verifyAzureIdentity } from './azure.js';
import { verifyGoogleIdentity } from './google.js';
import { IdentityRejected } from './identity-error.js';
import type { InstanceIdentityTrust } from './trust.js';

/** What an agent on a cloud machine posts to prove which instance it runs on. */
export type InstanceIdentityProof =
  | { readonly cloud: 'aws'; readonly document: string; readonly signature: string }
  | { readonly cloud: 'azure'; readonly signature: string }
  | { readonly cloud: 'google'; readonly jsonWebToken: string };

type Cloud = InstanceIdentityProof['cloud'];

const CLOUDS: Readonly<
  Record<Cloud, { readonly name: string; readonly message: string; readonly flag: string; readonly env: string; readonly what: string }>
> = {
  aws: {
    name: 'AWS',
    message: 'Invalid AWS identity.',
    flag: 'aws-instance-identity-certs',
    env: 'COVE_AWS_INSTANCE_IDENTITY_CERTS',
    what: 'a PEM file of the certificates AWS publishes for verifying instance identity documents (RSA-SHA256)',
  },
  azure: {
    name: 'Azure',
    message: 'Invalid Azure identity.',
    flag: 'azure-instance-identity-roots',
    env: 'COVE_AZURE_INSTANCE_IDENTITY_ROOTS',
    what: "a PEM file of the roots (and intermediates) of the certificates that sign Azure's attested documents",
  },
  google: {
    name: 'Google',
    message: 'Invalid GCP identity.',
    flag: 'google-instance-identity-certs',
    env: 'COVE_GOOGLE_INSTANCE_IDENTITY_CERTS',
    what: "Google's signing keys, as a JWKS file (https://www.googleapis.com/oauth2/v3/certs) or a PEM file of certificates",
  },
};

/**
 * The instance id a proof shows, checked against the deployment's trust. A proof that does not
 * hold is a 401 with the cloud's message and the reason as detail; a Google token whose claims
 * cannot be read is a 400, as in the reference.
 */
export function verifyInstanceIdentity(trust: InstanceIdentityTrust, proof: InstanceIdentityProof, now: Date): string {
  const cloud = CLOUDS[proof.cloud];
  if (trust[proof.cloud].length === 0) {
    throw new HttpProblem(401, cloud.message, {
      detail:
        `This deployment trusts no ${cloud.name} signing certificates, so it cannot verify the identity. ` +
        `Cove does not bundle the clouds' certificates: set --${cloud.flag} (${cloud.env}) to ${cloud.what}.`,
    });
  }
  try {
    switch (proof.cloud) {
      case 'aws':
        return verifyAwsIdentity({ document: proof.document, signature: proof.signature }, trust.aws);
      case 'azure':
        return verifyAzureIdentity(proof.signature, trust.azure, now);
      case 'google':
        return verifyGoogleIdentity(proof.jsonWebToken, trust.google, now);
    }
  } catch (error) {
    if (!(error instanceof IdentityRejected)) throw error;
    if (error.kind === 'claims') throw new HttpProblem(400, 'Error decoding JWT claims.', { detail: error.message });
    throw new HttpProblem(401, cloud.message, { detail: `${error.message[0]?.toUpperCase() ?? ''}${error.message.slice(1)}.` });
  }
}

/**
 * Gives the agent that runs on `instanceId` a session token (reference §1.2): the newest agent with
 * that instance id, which must belong to a workspace build that is its workspace's latest.
 *
 * Cove keeps only the hash of agent tokens, so it cannot hand back the token the build made; it
 * makes a new random token, stores its hash in place of the old one and returns it. An agent that
 * signs in with its instance identity never had the old token, and each exchange replaces the
 * token of the one before.
 *
 * Like the agent-token check, this is authentication: there is no subject yet, so `store` is the
 * instance-identity system subject's, which may read agents' workspaces and replace their tokens.
 */
export async function issueInstanceAgentToken(store: AuthorizedStore, instanceId: string): Promise<string> {
  const found = await store.workspaceAgents.findByInstanceId(instanceId);
  if (!found) {
    throw new HttpProblem(404, `Instance with id ${JSON.stringify(instanceId)} not found.`, {
      detail: "No workspace agent was provisioned with this instance id; the template sets it as the agent's instance_id.",
    });
  }
  if (found.jobType !== 'workspace_build') {
    throw new HttpProblem(400, `${JSON.stringify(found.jobType)} jobs cannot be authenticated.`, {
      detail: 'Only agents of workspace builds can sign in.',
    });
  }
  const owners = found.owners;
  if (!owners || !(await store.workspaceAgents.isBuildLatest(owners))) {
    throw new HttpProblem(400, `Resource found for id ${JSON.stringify(instanceId)}, but isn't registered on the latest history.`, {
      detail: 'The agent with this instance id belongs to a build that is no longer the latest build of a live workspace.',
    });
  }
  const token = randomUUID();
  await store.workspaceAgents.replaceToken(owners, createHash('sha256').update(token).digest('hex'));
  return token;
}
