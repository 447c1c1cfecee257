import { htmlFromText, type Mailer } from '../mailer.js';
import type { NotificationSender, SendOutcome } from './send-outcome.js';

/**
 * Sends a message as e-mail through the mailer: the title as subject, the body and its links as
 * the text part, and the HTML part made from the same text. A server's 5xx answer (no such
 * mailbox, refused) fails for good; anything else (unreachable, 4xx) is tried again.
 */
export function emailSender(mailer: Mailer): NotificationSender {
  return async (_message, payload, signal): Promise<SendOutcome> => {
    if (!payload.user_email) return { kind: 'permanent', reason: 'the user has no e-mail address' };
    const links = payload.actions.map((action) => `${action.label}: ${action.url}`);
    const text = links.length > 0 ? `${payload.body}\n\n${links.join('\n')}\n` : `${payload.body}\n`;
    const sending = mailer.send({
      to: payload.user_email,
      subject: payload.title,
      text,
      html: htmlFromText(payload.body, payload.actions),
    });
    try {
      await abortable(sending, signal);
      return { kind: 'sent' };
    } catch (error) {
      const code = (error as { responseCode?: unknown }).responseCode;
      const reason = `smtp: ${(error as Error).message}`;
      return typeof code === 'number' && code >= 500 ? { kind: 'permanent', reason } : { kind: 'retry', reason };
    }
  };
}

/** `work`, or a rejection once `signal` aborts, whichever comes first. */
export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new Error('timed out'));
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
