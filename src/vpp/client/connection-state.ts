/**
 * The client's connection states and the only transitions allowed between them. Keeping them in
 * one table makes an illegal transition a loud bug instead of a silent, half-connected client.
 */
import { backoffDelayMs } from '../../util/backoff.js';
export type ConnectionState = 'idle' | 'connecting' | 'ready' | 'reconnecting' | 'closing' | 'closed';

const TRANSITIONS: Readonly<Record<ConnectionState, readonly ConnectionState[]>> = {
  idle: ['connecting', 'closing', 'closed'],
  // connecting covers the socket connect and the sockclnt_create handshake.
  connecting: ['ready', 'reconnecting', 'closing', 'closed'],
  ready: ['reconnecting', 'closing', 'closed'],
  reconnecting: ['connecting', 'closing', 'closed'],
  closing: ['closed'],
  closed: [],
};

export function canTransition(from: ConnectionState, to: ConnectionState): boolean {
  return TRANSITIONS[from].includes(to);
}

/** The default reconnect policy: exponential from 100 ms to 5 s with ±20 % jitter, never giving up. */
export function defaultRetryStrategy(attempt: number): number {
  return backoffDelayMs(RECONNECT_BACKOFF, attempt);
}

const RECONNECT_BACKOFF = { initialMs: 100, maxMs: 5000, jitter: 0.2 } as const;
