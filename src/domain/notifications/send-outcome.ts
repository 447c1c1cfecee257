import type { NotificationMessageRow } from '../../store/authorized-store.js';
import type { NotificationPayload } from './payload.js';

/** How one sending went: sent, to be tried again, or never to be tried again. */
export type SendOutcome =
  { readonly kind: 'sent' } | { readonly kind: 'retry'; readonly reason: string } | { readonly kind: 'permanent'; readonly reason: string };

/** Sends one leased message by its method; `signal` aborts when the dispatch timeout passes. */
export type NotificationSender = (
  message: NotificationMessageRow,
  payload: NotificationPayload,
  signal: AbortSignal,
) => Promise<SendOutcome>;
