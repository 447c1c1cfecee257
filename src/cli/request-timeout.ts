import type { DeploymentTimeoutError } from '../sdk/http-transport.js';

/**
 * What a command says when the deployment took a request and gave no answer in time, for the
 * general error report and for `health report` alike, so both name the limit and how to raise it.
 */
export function timedOut(error: DeploymentTimeoutError, url?: string): { readonly message: string; readonly hint: string } {
  const seconds = Number((error.timeoutMs / 1000).toFixed(3));
  return {
    message: `The deployment${url ? ` at ${url}` : ''} did not answer within ${seconds}s.`,
    hint: 'Check that "cove serve" is running and reachable there; --request-timeout (or COVE_REQUEST_TIMEOUT) gives it longer.',
  };
}
