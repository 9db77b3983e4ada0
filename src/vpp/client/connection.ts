/**
 * The connection half of the client core: one logical session with VPP's binary API that
 * survives VPP restarts.
 *
 * - A transport per attempt, made by the injected factory (the Unix socket one by default); a
 *   generation number per transport, so callbacks from a dead one are ignored.
 * - The handshake (`sockclnt_create`) and a fresh message table on every connect; the messages the
 *   caller needs are checked by name and CRC, and every incompatibility is reported at once.
 * - The state machine (connection-state.ts), reconnecting per the retry strategy, and the health
 *   check. What travels over the session (contexts, queues, deadlines, frame routing) is the
 *   request mux's, which listens through ConnectionListener.
 */
import { typedChannel } from '../../util/typed-channel.js';
import { EventEmitter } from 'node:events';
import { VppError } from '../errors.js';
import { decodeMessage, encodeMessage } from '../codec/message-codec.js';
import type { Message, MessageDef } from '../codec/schema.js';
import { definitions, msg } from '../messages/index.js';
import type { TransportFactory, VppTransport } from '../transport/transport.js';
import { canTransition, type ConnectionState } from './connection-state.js';
import { describeIncompatible, MessageTable, type CompatibilityReport } from './message-table.js';
import type { Timer, Timers } from '../../util/timers.js';
import type { VppClientEvents } from './vpp-api.js';

/** Fixed memclnt ids: valid before any message table exists. */
const SOCKCLNT_CREATE_ID = 15;
const SOCKCLNT_CREATE_REPLY_ID = 16;

/** How long close() waits for VPP to close its side before tearing the socket down. */
const CLOSE_WAIT_MS = 1000;

/** Each change of the connection's state (for tools; the client's own 'state' event serves code). */
export const STATE_CHANNEL = typedChannel<{
  readonly from: ConnectionState;
  readonly to: ConnectionState;
  readonly socketPath: string;
}>('vppnet:vpp:state');
const stateChannel = STATE_CHANNEL;

/** What the connection tells the request mux; one listener per connection. */
export interface ConnectionListener {
  /** A context for the handshake, from the same sequence as the requests'. */
  allocContext(): number;
  /**
   * One frame after the handshake, its payload in place at `buf[start, end)` (often the socket's
   * chunk itself); valid only during the call.
   */
  onFrame(buf: Buffer, start: number, end: number): void;
  /** A handshake succeeded and the state is 'ready'; runs before the 'ready' event. */
  onReady(reconnect: boolean): void;
  /** The transport drained after send() returned false. */
  onDrain(): void;
  /** The transport closed: requests written on it are lost. */
  onLost(err: Error | undefined): void;
  /** close() began; `goodbye`: the session is up and should end with sockclnt_delete. */
  onClosing(goodbye: boolean): Promise<void>;
  /** The connection ended for good (closed, gave up, incompatible): fail what is left. */
  onEnded(err: Error): void;
  /** The health check's probe: a control_ping with this deadline. */
  probe(timeoutMs: number): Promise<unknown>;
}

export interface VppConnectionOptions {
  readonly socketPath: string;
  readonly clientName: string;
  readonly requiredMessages: readonly MessageDef[];
  readonly connectTimeoutMs: number;
  readonly retryStrategy: (attempt: number) => number | null;
  readonly healthCheckIntervalMs: number;
  readonly healthCheckTimeoutMs: number;
  readonly transportFactory: TransportFactory;
  readonly timers: Timers;
}

const DETACHED: ConnectionListener = {
  allocContext: () => 1,
  onFrame: () => undefined,
  onReady: () => undefined,
  onDrain: () => undefined,
  onLost: () => undefined,
  onClosing: () => Promise.resolve(),
  onEnded: () => undefined,
  probe: () => Promise.resolve(),
};

export class VppConnection {
  readonly #opts: VppConnectionOptions;
  readonly #timers: Timers;
  readonly #events = new EventEmitter();
  #listener: ConnectionListener = DETACHED;

  #state: ConnectionState = 'idle';
  /** Incremented per transport; callbacks from an older one are ignored. */
  #generation = 0;
  #transport: VppTransport | undefined;
  #table: MessageTable | undefined;
  #clientIndex = 0;
  #retryTimer: Timer | undefined;
  #healthTimer: Timer | undefined;
  #healthPingSentAt = 0;
  /**
   * Frames received on this session, counted rather than timestamped: the health check only asks
   * whether anything arrived since its ping went out, and a clock read per frame cost as much as
   * the request mux's own lookup of the frame's request (CPU profile, pipelined control_ping).
   */
  #framesIn = 0;
  /** #framesIn when the health ping went out. */
  #framesAtHealthPing = 0;
  #attempt = 0;
  #everReady = false;
  #closePromise: Promise<void> | undefined;
  #compatibility: CompatibilityReport = { compatible: [], incompatible: [] };

  constructor(opts: VppConnectionOptions) {
    this.#opts = opts;
    this.#timers = opts.timers;
  }

  /** Installs the request mux; called once, before connecting. */
  listen(listener: ConnectionListener): void {
    this.#listener = listener;
  }

  get state(): ConnectionState {
    return this.#state;
  }

  get socketPath(): string {
    return this.#opts.socketPath;
  }

  /** The transport of the current attempt, undefined between attempts. */
  get transport(): VppTransport | undefined {
    return this.#transport;
  }

  /** This session's message table; undefined until the handshake is done and after it is lost. */
  get table(): MessageTable | undefined {
    return this.#table;
  }

  get clientIndex(): number {
    return this.#clientIndex;
  }

  get generation(): number {
    return this.#generation;
  }

  /** The report of the last handshake. */
  get compatibility(): CompatibilityReport {
    return this.#compatibility;
  }

  on<E extends keyof VppClientEvents>(event: E, listener: VppClientEvents[E]): void {
    this.#events.on(event, listener);
  }

  off<E extends keyof VppClientEvents>(event: E, listener: VppClientEvents[E]): void {
    this.#events.off(event, listener);
  }

  once<E extends keyof VppClientEvents>(event: E, listener: VppClientEvents[E]): void {
    this.#events.once(event, listener);
  }

  /** Emits 'error' when someone listens (an unheard 'error' would throw). */
  reportError(err: Error): void {
    if (this.#events.listenerCount('error') > 0) this.#events.emit('error', err);
  }

  #setState(to: ConnectionState): void {
    const from = this.#state;
    if (from === to) return;
    if (!canTransition(from, to)) throw new Error(`vpp client: illegal state transition ${from} -> ${to}`);
    this.#state = to;
    if (stateChannel.hasSubscribers) stateChannel.publish({ from, to, socketPath: this.#opts.socketPath });
    this.#events.emit('state', to, from);
  }

  /** Connects once; see VppClient.connect(). */
  async connect(): Promise<void> {
    if (this.#state !== 'idle')
      throw new VppError('VPPNET_ERR_CLOSED', `connect() called in state ${this.#state}`);
    try {
      await this.#attemptConnect();
    } catch (err) {
      this.#setState('closed');
      this.#listener.onEnded(
        new VppError('VPPNET_ERR_NOT_CONNECTED', `could not connect to ${this.#opts.socketPath}`, {
          cause: err,
        }),
      );
      throw err;
    }
  }

  /** Starts connecting in the background, retrying per the strategy. */
  start(): void {
    if (this.#state !== 'idle') return;
    this.#attemptConnect().catch((err: unknown) => this.#onConnectFailure(err as Error));
  }

  /** Resolves when ready; rejects when the connection closes first or after `timeoutMs`. */
  whenReady(timeoutMs?: number): Promise<void> {
    if (this.#state === 'ready') return Promise.resolve();
    if (this.#state === 'closed' || this.#state === 'closing') {
      return Promise.reject(new VppError('VPPNET_ERR_CLOSED', 'client is closed'));
    }
    return new Promise((resolve, reject) => {
      let timer: Timer | undefined;
      const onState = (to: ConnectionState): void => {
        if (to === 'ready') done(undefined);
        else if (to === 'closed' || to === 'closing')
          done(new VppError('VPPNET_ERR_CLOSED', 'client closed'));
      };
      const done = (err: Error | undefined): void => {
        timer?.cancel();
        this.off('state', onState);
        if (err) reject(err);
        else resolve();
      };
      this.on('state', onState);
      if (timeoutMs !== undefined) {
        timer = this.#timers.after(timeoutMs, () =>
          done(
            new VppError(
              'VPPNET_ERR_TIMEOUT',
              `VPP not ready after ${timeoutMs} ms (${this.#opts.socketPath})`,
            ),
          ),
        );
      }
    });
  }

  async #attemptConnect(): Promise<void> {
    this.#setState('connecting');
    const generation = ++this.#generation;
    const { socketPath, connectTimeoutMs } = this.#opts;
    const transport = this.#opts.transportFactory({ path: socketPath, connectTimeoutMs });
    this.#transport = transport;
    await transport.connect();
    if (generation !== this.#generation) {
      transport.destroy();
      throw new VppError('VPPNET_ERR_CLOSED', 'client closed while connecting');
    }
    let handshakeDone: (payload: Buffer | Error) => void = () => undefined;
    const handshake = new Promise<Buffer>((resolve, reject) => {
      handshakeDone = (p) => (p instanceof Error ? reject(p) : resolve(Buffer.from(p)));
    });
    const onFrame = (buf: Buffer, start: number, end: number): void => {
      if (generation !== this.#generation) return;
      this.#framesIn++;
      if (this.#table === undefined) {
        if (buf.readUInt16BE(start) === SOCKCLNT_CREATE_REPLY_ID) handshakeDone(buf.subarray(start, end));
        return;
      }
      try {
        this.#listener.onFrame(buf, start, end);
      } catch (err) {
        // Never let a bug here escape into the socket's data handler (an uncaught exception).
        transport.destroy(err as Error);
      }
    };
    // In place when the transport can (no Buffer per frame), else from its 'frame' events.
    if (transport.onFrameAt) transport.onFrameAt(onFrame);
    else transport.on('frame', (payload) => onFrame(payload, 0, payload.length));
    transport.on('close', (err) => {
      if (generation !== this.#generation) return;
      handshakeDone(
        err ?? new VppError('VPPNET_ERR_CONN_LOST', 'VPP closed the connection during the handshake'),
      );
      this.#onTransportClose(err);
    });
    transport.on('drain', () => {
      if (generation === this.#generation) this.#listener.onDrain();
    });

    this.#table = undefined;
    const handshakeContext = this.#listener.allocContext();
    transport.send(
      encodeMessage(
        msg.sockclnt_create,
        SOCKCLNT_CREATE_ID,
        { name: this.#opts.clientName },
        { context: handshakeContext },
      ),
    );
    const timer = this.#timers.after(connectTimeoutMs, () =>
      handshakeDone(
        new VppError('VPPNET_ERR_HANDSHAKE', `no sockclnt_create_reply within ${connectTimeoutMs} ms`),
      ),
    );
    let reply: Message<typeof msg.sockclnt_create_reply>;
    try {
      reply = decodeMessage(msg.sockclnt_create_reply, await handshake);
    } catch (err) {
      transport.destroy();
      throw err;
    } finally {
      timer.cancel();
    }
    if (reply.response !== 0) {
      transport.destroy();
      throw new VppError('VPPNET_ERR_HANDSHAKE', `sockclnt_create refused: response ${reply.response}`);
    }
    const table = new MessageTable(reply.message_table);
    table.resolve(definitions);
    const compatibility = table.resolve(this.#opts.requiredMessages);
    this.#compatibility = compatibility;
    if (compatibility.incompatible.length) {
      transport.destroy();
      throw new VppError(
        'VPPNET_ERR_INCOMPATIBLE',
        `VPP at ${socketPath} lacks messages vppnet needs: ${describeIncompatible(compatibility.incompatible)}`,
      );
    }
    this.#table = table;
    this.#clientIndex = reply.index;
    this.#attempt = 0;
    const reconnect = this.#everReady;
    this.#everReady = true;
    this.#setState('ready');
    this.#listener.onReady(reconnect);
    this.#armHealthCheck();
    this.#events.emit('ready', { reconnect, compatibility });
  }

  #onConnectFailure(err: Error): void {
    if (this.#state === 'closing' || this.#state === 'closed') return;
    this.#transport = undefined;
    this.reportError(err);
    if (err instanceof VppError && err.code === 'VPPNET_ERR_INCOMPATIBLE') {
      // Retrying cannot make a VPP grow the messages it lacks.
      this.#setState('closed');
      this.#listener.onEnded(err);
      return;
    }
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    const delay = this.#opts.retryStrategy(this.#attempt++);
    if (delay === null) {
      this.#setState('closed');
      this.#listener.onEnded(
        new VppError('VPPNET_ERR_NOT_CONNECTED', `gave up reconnecting to ${this.#opts.socketPath}`),
      );
      return;
    }
    if (this.#state !== 'reconnecting') this.#setState('reconnecting');
    this.#retryTimer = this.#timers.after(delay, () => {
      this.#retryTimer = undefined;
      this.#attemptConnect().catch((err: unknown) => this.#onConnectFailure(err as Error));
    });
  }

  #onTransportClose(err: Error | undefined): void {
    this.#transport = undefined;
    this.#table = undefined;
    this.#stopHealthCheck();
    this.#listener.onLost(err);
    if (this.#state === 'ready') {
      if (err) this.reportError(err);
      this.#scheduleReconnect();
    }
  }

  /** Ends the session politely (sockclnt_delete through the mux), then stops for good. */
  close(): Promise<void> {
    this.#closePromise ??= this.#close();
    return this.#closePromise;
  }

  async #close(): Promise<void> {
    if (this.#state === 'closed') return;
    const wasReady = this.#state === 'ready';
    this.#setState('closing');
    this.#retryTimer?.cancel();
    this.#retryTimer = undefined;
    this.#stopHealthCheck();
    const transport = this.#transport;
    await this.#listener.onClosing(wasReady && transport !== undefined);
    this.#generation++;
    this.#listener.onEnded(new VppError('VPPNET_ERR_CLOSED', 'client closed'));
    if (transport) {
      // close() waits for VPP to close its side; a VPP that never does must not hang us.
      let timer: Timer | undefined;
      await Promise.race([
        transport.close(),
        new Promise<void>((r) => (timer = this.#timers.after(CLOSE_WAIT_MS, r))),
      ]);
      timer?.cancel();
      transport.destroy();
    }
    this.#transport = undefined;
    this.#setState('closed');
  }

  /**
   * Periodic control_ping. A missing answer counts only if nothing at all arrived meanwhile: a
   * large dump in progress delays the ping's reply without meaning VPP is gone.
   */
  #armHealthCheck(): void {
    const intervalMs = this.#opts.healthCheckIntervalMs;
    const timeoutMs = this.#opts.healthCheckTimeoutMs;
    if (intervalMs <= 0) return;
    this.#stopHealthCheck();
    this.#healthTimer = this.#timers.every(intervalMs, () => {
      if (this.#state !== 'ready') return;
      const now = this.#timers.now();
      if (this.#healthPingSentAt) {
        const silentMs = now - this.#healthPingSentAt;
        if (silentMs > timeoutMs && this.#framesIn === this.#framesAtHealthPing) {
          this.#healthPingSentAt = 0;
          this.#transport?.destroy(
            new VppError('VPPNET_ERR_TIMEOUT', `health check: no answer from VPP for ${silentMs} ms`),
          );
        }
        return;
      }
      this.#healthPingSentAt = now;
      this.#framesAtHealthPing = this.#framesIn;
      this.#listener
        .probe(timeoutMs + intervalMs)
        .catch(() => undefined)
        .finally(() => {
          this.#healthPingSentAt = 0;
        });
    });
    this.#healthTimer.unref();
  }

  #stopHealthCheck(): void {
    this.#healthTimer?.cancel();
    this.#healthTimer = undefined;
    this.#healthPingSentAt = 0;
  }
}
