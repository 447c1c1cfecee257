// Whether the dashboard can reach its server, as its fetches and live streams find out: lost when
// a request fails without an answer or a stream drops, back as soon as anything gets through.
// Streams listen for "retry now" to reconnect at once instead of waiting out their backoff.
import { useSyncExternalStore } from 'react';

export type ConnectionState = 'online' | 'lost';

let state: ConnectionState = 'online';
const listeners = new Set<() => void>();
const retryListeners = new Set<() => void>();

function set(next: ConnectionState): void {
  if (state === next) return;
  state = next;
  // The page's badges read this (see the styles) to show what they say as possibly out of date.
  document.documentElement.dataset['connection'] = next;
  for (const listener of listeners) listener();
}

/** A request or stream could not reach the server. */
export function reportConnectionLost(): void {
  set('lost');
}

/** A request or stream reached the server. */
export function reportConnectionBack(): void {
  set('online');
}

export function connectionState(): ConnectionState {
  return state;
}

/** Asks every live stream to reconnect now. */
export function retryConnectionNow(): void {
  for (const listener of [...retryListeners]) listener();
}

/** Calls `listener` whenever someone asks to retry now; returns the way to stop. */
export function onRetryConnection(listener: () => void): () => void {
  retryListeners.add(listener);
  return () => retryListeners.delete(listener);
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The connection state, re-rendered when it changes. */
export function useConnectionState(): ConnectionState {
  return useSyncExternalStore(subscribe, connectionState);
}
