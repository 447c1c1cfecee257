import type { AuthMethods } from '../sdk/wire/index.js';
import type { DeploymentValues } from './deployment-options.js';

/**
 * The sign-in methods this deployment offers: passwords unless turned off, GitHub once its OAuth
 * app's client id is set, OIDC once its issuer and client id are. Nothing here is secret: the
 * sign-in page reads it before anyone is signed in.
 */
export function authMethods(values: DeploymentValues): AuthMethods {
  return {
    password: { enabled: !values.disablePasswordAuth },
    // No GitHub app is built in: only one the operator configured can sign users in.
    github: { enabled: values.githubClientId !== '', default_provider_configured: false },
    oidc: { enabled: values.oidcIssuerUrl !== '' && values.oidcClientId !== '', signInText: '', iconUrl: '' },
  };
}
