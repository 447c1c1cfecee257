/**
 * The TLS settings of this process's connections to a deployment: the CA it trusts and the client
 * certificate it presents (`cove --client-tls-*`). One setting for the process, set once before
 * any request, so that every request and WebSocket of the SDK, the agent and the provisioner daemon
 * uses it without each caller passing it along.
 */
export interface ClientTls {
  /** PEM certificates of the authorities trusted, the public ones built in included; undefined for those alone. */
  readonly ca?: readonly string[];
  /** PEM client certificate, with its key. */
  readonly cert?: string;
  readonly key?: string;
}

let current: ClientTls = {};

/** Sets the process's client TLS settings. */
export function setClientTls(settings: ClientTls): void {
  current = { ...settings };
}

/** Options to add to an `https.request` or a `ws` WebSocket's options; empty when nothing is set. */
export function clientTlsOptions(): { ca?: string[]; cert?: string; key?: string } {
  return {
    ...(current.ca ? { ca: [...current.ca] } : {}),
    ...(current.cert !== undefined ? { cert: current.cert } : {}),
    ...(current.key !== undefined ? { key: current.key } : {}),
  };
}
