/**
 * A VppClient that never touches a socket, for agent tests: the test decides when VPP "connects",
 * drops or fails, and sees whether and when the agent closed it. Reconcile functions in these
 * tests are fakes too, so no request ever reaches this client.
 */
import { EventEmitter } from 'node:events';
import type { ConnectionState } from '../../vpp/client/connection-state.js';
import { VppClient, type VppClientEvents } from '../../vpp/client/vpp-client.js';

export class FakeVppClient extends VppClient {
  readonly #emitter = new EventEmitter();
  #state: ConnectionState = 'idle';
  #pid: number;
  started = 0;
  closed = 0;
  /** Called inside close(), e.g. to record the order of events. */
  onClose: () => void = () => undefined;

  constructor(pid = 4242) {
    super({ socketPath: '/nonexistent/fake-vpp.sock', healthCheckIntervalMs: 0 });
    this.#pid = pid;
  }

  override get state(): ConnectionState {
    return this.#state;
  }

  override get vppPid(): number {
    return this.#pid;
  }

  override on<E extends keyof VppClientEvents>(event: E, listener: VppClientEvents[E]): this {
    this.#emitter.on(event, listener);
    return this;
  }

  override off<E extends keyof VppClientEvents>(event: E, listener: VppClientEvents[E]): this {
    this.#emitter.off(event, listener);
    return this;
  }

  override once<E extends keyof VppClientEvents>(event: E, listener: VppClientEvents[E]): this {
    this.#emitter.once(event, listener);
    return this;
  }

  override start(): void {
    this.started++;
    if (this.#state === 'idle') this.#setState('connecting');
  }

  /** A successful handshake; a VPP restart is `handshake({ pid: newPid })` after `drop()`. */
  handshake(opts: { readonly pid?: number } = {}): void {
    const reconnect = this.#state === 'reconnecting';
    if (opts.pid !== undefined) this.#pid = opts.pid;
    if (this.#state !== 'connecting') this.#setState('connecting');
    this.#setState('ready');
    this.#emitter.emit('ready', { reconnect, compatibility: { compatible: [], incompatible: [] } });
  }

  /** The connection broke; the real client would now retry. */
  drop(err = new Error('ECONNRESET')): void {
    this.#emitter.emit('error', err);
    this.#setState('reconnecting');
  }

  /** A failed connection attempt. */
  failAttempt(err: Error): void {
    this.#emitter.emit('error', err);
    if (this.#state === 'connecting') this.#setState('reconnecting');
  }

  override close(): Promise<void> {
    this.closed++;
    this.onClose();
    if (this.#state !== 'closed') {
      this.#setState('closing');
      this.#setState('closed');
    }
    return Promise.resolve();
  }

  #setState(to: ConnectionState): void {
    const from = this.#state;
    this.#state = to;
    this.#emitter.emit('state', to, from);
  }
}
