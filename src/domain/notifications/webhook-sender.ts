import { createHmac } from 'node:crypto';
import type { NotificationSender, SendOutcome } from './send-outcome.js';

/** The header of the body's signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export const SIGNATURE_HEADER = 'X-Cove-Signature';
/** The header naming the message, so that a receiver can tell a retry from a new notification. */
export const NOTIFICATION_ID_HEADER = 'X-Cove-Notification-Id';

/** The signature header's value for `body` sent at `at`. */
export function webhookSignature(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

/**
 * POSTs a message as JSON to the endpoint, signed with the secret when one is set. A 2xx answer
 * is sent; a 4xx other than 429 means the receiver will never take it, so it fails for good;
 * anything else (5xx, 429, no answer in time) is tried again.
 */
export function webhookSender(settings: {
  readonly endpoint: () => string;
  readonly secret: string;
  readonly now: () => Date;
}): NotificationSender {
  return async (message, payload, signal): Promise<SendOutcome> => {
    const endpoint = settings.endpoint();
    if (!endpoint) return { kind: 'permanent', reason: 'webhook: no endpoint is configured' };
    const body = JSON.stringify({
      id: message.id,
      kind_id: payload.kind_id,
      kind_name: payload.kind_name,
      title: payload.title,
      body: payload.body,
      actions: payload.actions,
      labels: payload.labels,
      targets: payload.targets,
      user_id: payload.user_id,
      user_email: payload.user_email,
      user_username: payload.user_username,
      created_at: message.created_at,
    });
    const headers: Record<string, string> = { 'content-type': 'application/json', [NOTIFICATION_ID_HEADER]: message.id };
    if (settings.secret) headers[SIGNATURE_HEADER] = webhookSignature(settings.secret, body, settings.now());
    let status: number;
    try {
      const response = await fetch(endpoint, { method: 'POST', headers, body, signal, redirect: 'manual' });
      status = response.status;
      await response.body?.cancel();
    } catch (error) {
      return { kind: 'retry', reason: `webhook: ${signal.aborted ? 'timed out' : (error as Error).message}` };
    }
    if (status >= 200 && status < 300) return { kind: 'sent' };
    const reason = `webhook: the endpoint answered ${status}`;
    return status >= 400 && status < 500 && status !== 429 ? { kind: 'permanent', reason } : { kind: 'retry', reason };
  };
}
