/**
 * The client core: one logical connection to VPP's binary API that survives VPP restarts.
 *
 * - Handshake (`sockclnt_create`) and a fresh message table on every connect; the messages the
 *   caller needs are checked by name and CRC, and every incompatibility is reported at once.
 * - Requests are pipelined and matched to replies by `context`; dumps end with `control_ping`;
 *   cursor services (`_get`) are followed to the end; events arrive on subscriptions that are
 *   re-established after every reconnect.
 * - Every request has a deadline: VPP silently drops some messages (unknown id, wrong
 *   client_index, short payload), so a missing reply must not hang the caller.
 * - After the connection drops, requests already written fail with VPPNET_ERR_CONN_LOST and are
 *   never replayed: add/del calls are not idempotent, and VPP may have lost all state. Requests
 *   not yet written wait in the offline queue and go out after the reconnect, encoded then with
 *   the new connection's ids.
 */
import diagnostics from 'node:diagnostics_channel';
import { EventEmitter } from 'node:events';
import { VppError } from '../errors.js';
import { contextOffsetOf, decodeMessage, encodeMessage } from '../codec/message-codec.js';
import type { Message, MessageDef, MessageInput } from '../codec/schema.js';
import { definitions, msg } from '../messages/index.js';
import { UnixSocketTransport } from '../transport/unix-socket-transport.js';
import { canTransition, defaultRetryStrategy, type ConnectionState } from './connection-state.js';
import { EventSubscription } from './event-subscription.js';
import { describeIncompatible, MessageTable, type CompatibilityReport } from './message-table.js';
import { VppRetvalError } from './retval-error.js';

export const DEFAULT_SOCKET_PATH = '/run/vpp/api.sock';

/** Fixed memclnt ids: valid before any message table exists. */
const SOCKCLNT_CREATE_ID = 15;
const SOCKCLNT_CREATE_REPLY_ID = 16;

/** retval of a cursor `_get` reply meaning "call again from the returned cursor". */
const VNET_EAGAIN = -165;

export interface VppClientOptions {
  readonly socketPath?: string;
  /** Shown by VPP in `show api clients`. */
  readonly clientName?: string;
  /** Messages this caller cannot work without: connect fails, listing each, when VPP lacks one. */
  readonly requiredMessages?: readonly MessageDef[];
  readonly requestTimeoutMs?: number;
  readonly connectTimeoutMs?: number;
  /** Requests in flight plus queued; beyond this a request fails at once with VPPNET_ERR_QUEUE_FULL. */
  readonly maxPending?: number;
  /** Queue requests while not connected (default) or fail them at once with VPPNET_ERR_NOT_CONNECTED. */
  readonly offlineQueue?: boolean;
  /** Delay before reconnect attempt `attempt` (0-based), or null to give up. */
  readonly retryStrategy?: (attempt: number) => number | null;
  /** 0 disables the periodic liveness check. */
  readonly healthCheckIntervalMs?: number;
  readonly healthCheckTimeoutMs?: number;
  /** Events buffered per subscription before it overflows. */
  readonly eventBufferSize?: number;
}

export interface RequestOptions {
  readonly timeoutMs?: number;
}

type AnyRecord = Readonly<Record<string, unknown>>;

/**
 * One unsettled request. A class with every field set in the constructor keeps all pending
 * entries one hidden class: this object is allocated per request on the hot path.
 */
class Pending {
  /** The connection generation the request was written on; 0 while still queued. */
  sentOn = 0;
  constructor(
    readonly kind: 'request' | 'dump' | 'get',
    readonly context: number,
    readonly def: MessageDef,
    readonly input: AnyRecord,
    readonly startedAt: number,
    readonly deadline: number,
    /** The details message of a dump or cursor service; undefined for a plain request. */
    readonly streamDef: MessageDef | undefined,
    /** What settles it: the reply, control_ping_reply for a dump, the `_get_reply` for a cursor. */
    readonly endDef: MessageDef,
    readonly items: AnyRecord[] | undefined,
    /** For dumpEach(): each details message goes here instead of into `items`. */
    readonly onItem: ((item: AnyRecord) => void) | undefined,
    readonly resolve: (value: unknown) => void,
    readonly reject: (err: Error) => void,
  ) {}
}

interface SubscriptionEntry {
  readonly wantDef: MessageDef & { readonly reply: MessageDef };
  readonly enableInput: AnyRecord;
  readonly disableInput: AnyRecord;
  readonly eventDef: MessageDef;
  readonly subscription: EventSubscription<AnyRecord>;
}

export interface VppClientEvents {
  state: (to: ConnectionState, from: ConnectionState) => void;
  /** Each successful handshake; `reconnect` is false for the first. */
  ready: (info: { readonly reconnect: boolean; readonly compatibility: CompatibilityReport }) => void;
  /** A connection attempt or an established connection failed; the client retries per strategy. */
  error: (err: Error) => void;
}

const requestChannel = diagnostics.channel('vppnet:vpp:request');
const stateChannel = diagnostics.channel('vppnet:vpp:state');

/** What `vppnet:vpp:request` publishes for each finished request. */
export interface RequestDiagnostic {
  readonly name: string;
  readonly durationMs: number;
  readonly outcome: 'ok' | 'retval' | 'timeout' | 'conn_lost' | 'error';
}

type WithReply = MessageDef & { readonly reply: MessageDef };
type WithStream = MessageDef & { readonly stream: MessageDef };
type ReplyMessage<M extends WithReply> = Message<M['reply']>;
type StreamMessage<M extends WithStream> = Message<M['stream']>;

export class VppClient {
  readonly #socketPath: string;
  readonly #clientName: string;
  readonly #required: readonly MessageDef[];
  readonly #requestTimeoutMs: number;
  readonly #connectTimeoutMs: number;
  readonly #maxPending: number;
  readonly #offlineQueue: boolean;
  readonly #retryStrategy: (attempt: number) => number | null;
  readonly #healthIntervalMs: number;
  readonly #healthTimeoutMs: number;
  readonly #eventBufferSize: number;
  readonly #events = new EventEmitter();

  #state: ConnectionState = 'idle';
  /** Incremented per transport; callbacks from an older one are ignored. */
  #generation = 0;
  #transport: UnixSocketTransport | undefined;
  #table: MessageTable | undefined;
  #clientIndex = 0;
  #vppPid = 0;
  #nextContext = 1;
  /** Every unsettled request, queued or written, by context; insertion order = age. */
  readonly #pending = new Map<number, Pending>();
  /** Requests not yet written: offline, or held back while the socket drains. */
  readonly #unsent: Pending[] = [];
  #blocked = false;
  readonly #subscriptions = new Set<SubscriptionEntry>();
  readonly #eventTargets = new Map<MessageDef, Set<SubscriptionEntry>>();
  #sweepTimer: NodeJS.Timeout | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #healthTimer: NodeJS.Timeout | undefined;
  #healthPingSentAt = 0;
  #lastFrameAt = 0;
  #attempt = 0;
  #everReady = false;
  #closePromise: Promise<void> | undefined;
  #compatibility: CompatibilityReport = { compatible: [], incompatible: [] };

  constructor(opts: VppClientOptions = {}) {
    this.#socketPath = opts.socketPath ?? DEFAULT_SOCKET_PATH;
    this.#clientName = opts.clientName ?? 'vppnet';
    this.#required = opts.requiredMessages ?? [];
    this.#requestTimeoutMs = opts.requestTimeoutMs ?? 10_000;
    this.#connectTimeoutMs = opts.connectTimeoutMs ?? 5_000;
    this.#maxPending = opts.maxPending ?? 100_000;
    this.#offlineQueue = opts.offlineQueue ?? true;
    this.#retryStrategy = opts.retryStrategy ?? defaultRetryStrategy;
    this.#healthIntervalMs = opts.healthCheckIntervalMs ?? 5_000;
    this.#healthTimeoutMs = opts.healthCheckTimeoutMs ?? 3_000;
    this.#eventBufferSize = opts.eventBufferSize ?? 10_000;
  }

  // -------------------------------------------------------------------------------------------
  // State and lifecycle

  get state(): ConnectionState {
    return this.#state;
  }

  /** VPP's process id from the last control_ping_reply (0 until one arrived). */
  get vppPid(): number {
    return this.#vppPid;
  }

  /** The report of the last handshake. */
  get compatibility(): CompatibilityReport {
    return this.#compatibility;
  }

  on<E extends keyof VppClientEvents>(event: E, listener: VppClientEvents[E]): this {
    this.#events.on(event, listener);
    return this;
  }

  off<E extends keyof VppClientEvents>(event: E, listener: VppClientEvents[E]): this {
    this.#events.off(event, listener);
    return this;
  }

  once<E extends keyof VppClientEvents>(event: E, listener: VppClientEvents[E]): this {
    this.#events.once(event, listener);
    return this;
  }

  #setState(to: ConnectionState): void {
    const from = this.#state;
    if (from === to) return;
    if (!canTransition(from, to)) throw new Error(`vpp client: illegal state transition ${from} -> ${to}`);
    this.#state = to;
    if (stateChannel.hasSubscribers) stateChannel.publish({ from, to, socketPath: this.#socketPath });
    this.#events.emit('state', to, from);
  }

  /**
   * Connects once: resolves when the handshake succeeded, rejects with the first failure (the
   * socket's errno error, VPPNET_ERR_INCOMPATIBLE, ...). After success the client reconnects by
   * itself whenever the connection drops.
   */
  async connect(): Promise<void> {
    if (this.#state !== 'idle') throw new VppError('VPPNET_ERR_CLOSED', `connect() called in state ${this.#state}`);
    try {
      await this.#attemptConnect();
    } catch (err) {
      this.#setState('closed');
      this.#failAll(new VppError('VPPNET_ERR_NOT_CONNECTED', `could not connect to ${this.#socketPath}`, { cause: err }));
      throw err;
    }
  }

  /**
   * Starts connecting in the background and keeps retrying per the retry strategy; use
   * `whenReady()` to wait. For an agent that may start before VPP does.
   */
  start(): void {
    if (this.#state !== 'idle') return;
    this.#attemptConnect().catch((err: unknown) => this.#onConnectFailure(err as Error));
  }

  /** Resolves when the client is ready; rejects when it closes first or after `timeoutMs`. */
  whenReady(timeoutMs?: number): Promise<void> {
    if (this.#state === 'ready') return Promise.resolve();
    if (this.#state === 'closed' || this.#state === 'closing') {
      return Promise.reject(new VppError('VPPNET_ERR_CLOSED', 'client is closed'));
    }
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onState = (to: ConnectionState): void => {
        if (to === 'ready') done(undefined);
        else if (to === 'closed' || to === 'closing') done(new VppError('VPPNET_ERR_CLOSED', 'client closed'));
      };
      const done = (err: Error | undefined): void => {
        if (timer) clearTimeout(timer);
        this.off('state', onState);
        if (err) reject(err);
        else resolve();
      };
      this.on('state', onState);
      if (timeoutMs !== undefined) {
        timer = setTimeout(
          () => done(new VppError('VPPNET_ERR_TIMEOUT', `VPP not ready after ${timeoutMs} ms (${this.#socketPath})`)),
          timeoutMs,
        );
      }
    });
  }

  async #attemptConnect(): Promise<void> {
    this.#setState('connecting');
    const generation = ++this.#generation;
    const transport = new UnixSocketTransport({ path: this.#socketPath, connectTimeoutMs: this.#connectTimeoutMs });
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
    transport.on('frame', (payload) => {
      if (generation !== this.#generation) return;
      this.#lastFrameAt = Date.now();
      if (this.#table === undefined) {
        if (payload.readUInt16BE(0) === SOCKCLNT_CREATE_REPLY_ID) handshakeDone(payload);
        return;
      }
      try {
        this.#onFrame(payload);
      } catch (err) {
        // Never let a bug here escape into the socket's data handler (an uncaught exception).
        transport.destroy(err as Error);
      }
    });
    transport.on('close', (err) => {
      if (generation !== this.#generation) return;
      handshakeDone(err ?? new VppError('VPPNET_ERR_CONN_LOST', 'VPP closed the connection during the handshake'));
      this.#onTransportClose(err);
    });
    transport.on('drain', () => {
      if (generation === this.#generation) this.#drain();
    });

    this.#table = undefined;
    const handshakeContext = this.#allocContext();
    transport.send(
      encodeMessage(msg.sockclnt_create, SOCKCLNT_CREATE_ID, { name: this.#clientName }, { context: handshakeContext }),
    );
    const timer = setTimeout(
      () => handshakeDone(new VppError('VPPNET_ERR_HANDSHAKE', `no sockclnt_create_reply within ${this.#connectTimeoutMs} ms`)),
      this.#connectTimeoutMs,
    );
    let reply: Message<typeof msg.sockclnt_create_reply>;
    try {
      reply = decodeMessage(msg.sockclnt_create_reply, await handshake);
    } catch (err) {
      transport.destroy();
      throw err;
    } finally {
      clearTimeout(timer);
    }
    if (reply.response !== 0) {
      transport.destroy();
      throw new VppError('VPPNET_ERR_HANDSHAKE', `sockclnt_create refused: response ${reply.response}`);
    }
    const table = new MessageTable(reply.message_table);
    table.resolve(definitions);
    const compatibility = table.resolve(this.#required);
    this.#compatibility = compatibility;
    if (compatibility.incompatible.length) {
      transport.destroy();
      throw new VppError(
        'VPPNET_ERR_INCOMPATIBLE',
        `VPP at ${this.#socketPath} lacks messages vppnet needs: ${describeIncompatible(compatibility.incompatible)}`,
      );
    }
    this.#table = table;
    this.#clientIndex = reply.index;
    this.#attempt = 0;
    const reconnect = this.#everReady;
    this.#everReady = true;
    this.#setState('ready');
    this.#resubscribe(reconnect);
    this.#drain();
    this.#armHealthCheck();
    this.#events.emit('ready', { reconnect, compatibility });
  }

  #onConnectFailure(err: Error): void {
    if (this.#state === 'closing' || this.#state === 'closed') return;
    this.#transport = undefined;
    if (this.#events.listenerCount('error') > 0) this.#events.emit('error', err);
    if (err instanceof VppError && err.code === 'VPPNET_ERR_INCOMPATIBLE') {
      // Retrying cannot make a VPP grow the messages it lacks.
      this.#setState('closed');
      this.#failAll(err);
      return;
    }
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    const delay = this.#retryStrategy(this.#attempt++);
    if (delay === null) {
      this.#setState('closed');
      this.#failAll(new VppError('VPPNET_ERR_NOT_CONNECTED', `gave up reconnecting to ${this.#socketPath}`));
      return;
    }
    if (this.#state !== 'reconnecting') this.#setState('reconnecting');
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#attemptConnect().catch((err: unknown) => this.#onConnectFailure(err as Error));
    }, delay);
  }

  #onTransportClose(err: Error | undefined): void {
    this.#transport = undefined;
    this.#table = undefined;
    this.#stopHealthCheck();
    this.#blocked = false;
    const lost = new VppError(
      'VPPNET_ERR_CONN_LOST',
      `connection to VPP lost${err ? `: ${err.message}` : ''}; the request's outcome is unknown`,
      err ? { cause: err } : undefined,
    );
    // Written requests may or may not have been applied: fail them, never replay.
    for (const p of [...this.#pending.values()]) if (p.sentOn !== 0) this.#settleError(p, lost, 'conn_lost');
    if (this.#state === 'ready') {
      if (err && this.#events.listenerCount('error') > 0) this.#events.emit('error', err);
      this.#scheduleReconnect();
    }
  }

  /** Ends the session politely (sockclnt_delete), fails what is left, stops reconnecting. */
  close(): Promise<void> {
    this.#closePromise ??= this.#close();
    return this.#closePromise;
  }

  async #close(): Promise<void> {
    if (this.#state === 'closed') return;
    const wasReady = this.#state === 'ready';
    this.#setState('closing');
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#stopHealthCheck();
    for (const s of this.#subscriptions) s.subscription.end();
    this.#subscriptions.clear();
    this.#eventTargets.clear();
    // Requests never written are dropped now; written ones still get their replies before the goodbye.
    const closed = new VppError('VPPNET_ERR_CLOSED', 'client closed');
    for (const p of this.#unsent.splice(0)) this.#settleError(p, closed, 'error');
    const transport = this.#transport;
    if (wasReady && transport) {
      const bye = this.#enqueue('request', msg.sockclnt_delete, { index: this.#clientIndex }, { timeoutMs: 1000 }, true);
      await bye.catch(() => undefined);
    }
    this.#generation++;
    this.#failAll(new VppError('VPPNET_ERR_CLOSED', 'client closed'));
    if (transport) {
      // close() waits for VPP to close its side; a VPP that never does must not hang us.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([transport.close(), new Promise<void>((r) => (timer = setTimeout(r, 1000)))]);
      clearTimeout(timer);
      transport.destroy();
    }
    this.#transport = undefined;
    this.#setState('closed');
  }

  // -------------------------------------------------------------------------------------------
  // Requests

  /** Sends a request and resolves with its reply, whatever its retval. */
  request<M extends WithReply>(def: M, input: MessageInput<M>, opts: RequestOptions = {}): Promise<ReplyMessage<M>> {
    return this.#enqueue('request', def, input, opts) as Promise<ReplyMessage<M>>;
  }

  /** Like request(), but a non-zero retval rejects with VppRetvalError naming message and error. */
  async call<M extends WithReply>(def: M, input: MessageInput<M>, opts: RequestOptions = {}): Promise<ReplyMessage<M>> {
    const reply = (await this.#enqueue('request', def, input, opts)) as AnyRecord;
    const retval = typeof reply.retval === 'number' ? reply.retval : 0;
    if (retval !== 0) throw new VppRetvalError(def.name, retval);
    return reply as ReplyMessage<M>;
  }

  /** Runs a dump (`X_dump` + `control_ping`) and resolves with all its details. */
  async dump<M extends WithStream>(def: M, input: MessageInput<M>, opts: RequestOptions = {}): Promise<StreamMessage<M>[]> {
    const result = (await this.#enqueue('dump', def, input, opts)) as { items: AnyRecord[] };
    return result.items as StreamMessage<M>[];
  }

  /**
   * Runs a dump and hands each details message to `onDetails` as it arrives, keeping none: for
   * dumps too large to hold at once (100k steering entries). Resolves with the count.
   */
  async dumpEach<M extends WithStream>(
    def: M,
    input: MessageInput<M>,
    onDetails: (details: StreamMessage<M>) => void,
    opts: RequestOptions = {},
  ): Promise<number> {
    let n = 0;
    const each = (item: AnyRecord): void => {
      n++;
      onDetails(item as StreamMessage<M>);
    };
    await this.#enqueue('dump', def, input, opts, false, each);
    return n;
  }

  /**
   * Follows a cursor service (`X_get` → details… → `X_get_reply`, retval -165 = more) to its end.
   * `cursor` is the name of the cursor field in both request and reply.
   */
  async getAll<M extends WithReply & WithStream>(def: M, input: MessageInput<M>, opts: RequestOptions = {}): Promise<StreamMessage<M>[]> {
    const all: AnyRecord[] = [];
    let cursorInput: AnyRecord = { ...(input as AnyRecord), cursor: 0 };
    for (;;) {
      const { reply, items } = (await this.#enqueue('get', def, cursorInput, opts)) as { reply: AnyRecord; items: AnyRecord[] };
      all.push(...items);
      const retval = reply.retval as number;
      if (retval === 0) return all as StreamMessage<M>[];
      if (retval !== VNET_EAGAIN) throw new VppRetvalError(def.name, retval);
      cursorInput = { ...cursorInput, cursor: reply.cursor };
    }
  }

  /** Runs a CLI command through cli_inband: for diagnostics, never for configuration. */
  async cli(command: string, opts: RequestOptions = {}): Promise<string> {
    const reply = await this.call(msg.cli_inband, { cmd: command }, opts);
    return reply.reply;
  }

  /** A control_ping round trip: proves VPP's main thread is answering this connection. */
  async ping(opts: RequestOptions = {}): Promise<void> {
    const reply = await this.call(msg.control_ping, {}, opts);
    this.#vppPid = reply.vpe_pid;
  }

  /** Whether the connected VPP has this exact message (name and CRC). */
  supports(def: MessageDef): boolean {
    return this.#table?.has(def) ?? false;
  }

  /** The first of `alternatives` the connected VPP supports, e.g. [sr_policy_add_v2, sr_policy_add]. */
  pick<M extends MessageDef>(alternatives: readonly M[]): M {
    for (const def of alternatives) if (this.supports(def)) return def;
    throw new VppError(
      'VPPNET_ERR_INCOMPATIBLE',
      `VPP supports none of ${alternatives.map((d) => `${d.name}_${d.crc}`).join(', ')}`,
    );
  }

  /**
   * Subscribes to events: sends `wantDef` with `enableInput` now and after every reconnect, and
   * yields each `eventDef` message. `disableInput` is sent on close (default: enable_disable 0).
   */
  async subscribe<W extends WithReply, E extends MessageDef>(
    wantDef: W,
    enableInput: MessageInput<W>,
    eventDef: E,
    disableInput?: MessageInput<W>,
  ): Promise<EventSubscription<Message<E>>> {
    const entry: SubscriptionEntry = {
      wantDef,
      enableInput: enableInput,
      disableInput: (disableInput as AnyRecord | undefined) ?? { ...(enableInput as AnyRecord), enable_disable: 0 },
      eventDef,
      subscription: new EventSubscription<AnyRecord>(this.#eventBufferSize, async () => {
        this.#subscriptions.delete(entry);
        this.#eventTargets.get(eventDef)?.delete(entry);
        if (this.#state === 'ready') await this.call(wantDef, entry.disableInput as MessageInput<W>);
      }),
    };
    await this.call(wantDef, enableInput);
    this.#subscriptions.add(entry);
    let targets = this.#eventTargets.get(eventDef);
    if (!targets) this.#eventTargets.set(eventDef, (targets = new Set()));
    targets.add(entry);
    return entry.subscription as unknown as EventSubscription<Message<E>>;
  }

  #resubscribe(reconnect: boolean): void {
    if (!reconnect) return;
    for (const entry of this.#subscriptions) {
      entry.subscription.push({ type: 'resync', reason: 'reconnected' });
      this.#enqueue('request', entry.wantDef, entry.enableInput, {}, true).catch((err: unknown) => {
        if (this.#events.listenerCount('error') > 0) {
          this.#events.emit('error', new VppError('VPPNET_ERR_CONN_LOST', `re-subscribing ${entry.wantDef.name} failed`, { cause: err }));
        }
      });
    }
  }

  #allocContext(): number {
    // u32, never 0 (vpp-wire.md: avoid context 0); wrapping after 4 billion requests is fine
    // because contexts in flight are bounded by maxPending.
    const c = this.#nextContext;
    this.#nextContext = c >= 0xffffffff ? 1 : c + 1;
    return c;
  }

  #enqueue(
    kind: Pending['kind'],
    def: MessageDef,
    input: AnyRecord,
    opts: RequestOptions,
    front = false,
    onItem?: (item: AnyRecord) => void,
  ): Promise<unknown> {
    if (this.#state === 'closed' || (this.#state === 'closing' && def !== msg.sockclnt_delete)) {
      return Promise.reject(new VppError('VPPNET_ERR_CLOSED', `${def.name}: client is closed`));
    }
    if (this.#state !== 'ready' && !this.#offlineQueue) {
      return Promise.reject(new VppError('VPPNET_ERR_NOT_CONNECTED', `${def.name}: not connected to VPP (${this.#state})`));
    }
    if (this.#pending.size >= this.#maxPending) {
      return Promise.reject(new VppError('VPPNET_ERR_QUEUE_FULL', `${def.name}: ${this.#maxPending} requests already pending`));
    }
    const now = Date.now();
    const timeoutMs = opts.timeoutMs ?? this.#requestTimeoutMs;
    let endDef: MessageDef | undefined;
    let streamDef: MessageDef | undefined;
    if (kind === 'request') endDef = def.reply;
    else {
      streamDef = def.stream;
      endDef = kind === 'dump' ? msg.control_ping_reply : def.reply;
      if (!streamDef) return Promise.reject(new VppError('VPPNET_ERR_UNKNOWN_MESSAGE', `${def.name} is not a dump`));
    }
    if (!endDef) return Promise.reject(new VppError('VPPNET_ERR_UNKNOWN_MESSAGE', `${def.name} has no reply message`));
    const settledBy = endDef;
    return new Promise((resolve, reject) => {
      const items = kind === 'request' ? undefined : [];
      const p = new Pending(kind, this.#allocContext(), def, input, now, now + timeoutMs, streamDef, settledBy, items, onItem, resolve, reject);
      this.#pending.set(p.context, p);
      this.#armSweep();
      if (this.#canWrite() && this.#unsent.length === 0) this.#write(p);
      else if (front) this.#unsent.unshift(p);
      else this.#unsent.push(p);
    });
  }

  /** Writes one request (and its control_ping for a dump); false if the id is unknown here. */
  #write(p: Pending): void {
    const transport = this.#transport;
    const table = this.#table;
    if (!transport || !table) {
      this.#unsent.unshift(p);
      return;
    }
    const id = table.idOf(p.def);
    if (id === undefined) {
      this.#settleError(
        p,
        new VppError('VPPNET_ERR_UNKNOWN_MESSAGE', `${p.def.name}_${p.def.crc} is not offered by the connected VPP`),
        'error',
      );
      return;
    }
    let frame: Buffer;
    try {
      frame = encodeMessage(p.def, id, p.input, { clientIndex: this.#clientIndex, context: p.context });
    } catch (err) {
      this.#settleError(p, err as Error, 'error');
      return;
    }
    p.sentOn = this.#generation;
    let ok = transport.send(frame);
    if (p.kind === 'dump') {
      const pingId = table.idOf(msg.control_ping) as number;
      ok = transport.send(encodeMessage(msg.control_ping, pingId, {}, { clientIndex: this.#clientIndex, context: p.context })) && ok;
    }
    if (!ok) this.#blocked = true;
  }

  /** Writing is allowed when connected, and while closing for the goodbye itself. */
  #canWrite(): boolean {
    return !this.#blocked && this.#table !== undefined && (this.#state === 'ready' || this.#state === 'closing');
  }

  #drain(): void {
    this.#blocked = false;
    while (this.#canWrite() && this.#unsent.length) {
      const p = this.#unsent.shift() as Pending;
      if (this.#pending.get(p.context) === p) this.#write(p);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Inbound frames

  #onFrame(payload: Buffer): void {
    const table = this.#table as MessageTable;
    const id = payload.readUInt16BE(0);
    const def = table.definitionOf(id);
    if (!def) return; // a message vppnet has no definition for: nothing can be waiting for it
    try {
      const targets = this.#eventTargets.get(def);
      if (targets) {
        const event = decodeMessage(def, payload);
        for (const t of targets) t.subscription.push({ type: 'event', event });
        return;
      }
      if (def === msg.memclnt_keepalive) {
        this.#answerKeepalive(payload);
        return;
      }
      const off = contextOffsetOf(def);
      if (off < 0 || off + 4 > payload.length) return;
      const p = this.#pending.get(payload.readUInt32BE(off));
      if (!p || p.sentOn !== this.#generation) return; // late reply to a request that timed out
      if (def === p.endDef) {
        const reply = decodeMessage(def, payload);
        this.#pending.delete(p.context);
        if (p.items === undefined) {
          const retval = typeof reply.retval === 'number' ? reply.retval : 0;
          this.#publish(p, retval === 0 ? 'ok' : 'retval');
          p.resolve(reply);
        } else {
          if (def === msg.control_ping_reply) this.#vppPid = (reply as Message<typeof msg.control_ping_reply>).vpe_pid;
          this.#publish(p, 'ok');
          p.resolve({ reply, items: p.items });
        }
      } else if (def === p.streamDef) {
        const item = decodeMessage(def, payload);
        if (p.onItem) p.onItem(item);
        else p.items?.push(item);
      }
    } catch (err) {
      // A reply that does not decode fails its request; the connection itself stays usable.
      const off = contextOffsetOf(def);
      const p = off >= 0 && off + 4 <= payload.length ? this.#pending.get(payload.readUInt32BE(off)) : undefined;
      if (p) this.#settleError(p, err as Error, 'error');
    }
  }

  #answerKeepalive(payload: Buffer): void {
    const table = this.#table;
    const id = table?.idOf(msg.memclnt_keepalive_reply);
    if (id === undefined || !this.#transport) return;
    const { context } = decodeMessage(msg.memclnt_keepalive, payload);
    this.#transport.send(encodeMessage(msg.memclnt_keepalive_reply, id, { retval: 0 }, { context }));
  }

  // -------------------------------------------------------------------------------------------
  // Deadlines, health, bookkeeping

  #settleError(p: Pending, err: Error, outcome: RequestDiagnostic['outcome']): void {
    if (this.#pending.get(p.context) !== p) return;
    this.#pending.delete(p.context);
    this.#publish(p, outcome);
    p.reject(err);
  }

  #failAll(err: Error): void {
    for (const p of [...this.#pending.values()]) this.#settleError(p, err, 'error');
    this.#unsent.length = 0;
    if (this.#sweepTimer) clearTimeout(this.#sweepTimer);
    this.#sweepTimer = undefined;
  }

  #publish(p: Pending, outcome: RequestDiagnostic['outcome']): void {
    if (!requestChannel.hasSubscribers) return;
    const d: RequestDiagnostic = { name: p.def.name, durationMs: Date.now() - p.startedAt, outcome };
    requestChannel.publish(d);
  }

  /** One timer for all deadlines, armed only while something is pending. */
  #armSweep(): void {
    if (this.#sweepTimer || this.#pending.size === 0) return;
    const interval = Math.min(250, Math.max(5, Math.floor(this.#requestTimeoutMs / 20)));
    this.#sweepTimer = setTimeout(() => {
      this.#sweepTimer = undefined;
      const now = Date.now();
      for (const p of [...this.#pending.values()]) {
        if (p.deadline <= now) {
          const where = p.sentOn ? 'no reply from VPP' : `still queued (client ${this.#state})`;
          this.#settleError(
            p,
            new VppError('VPPNET_ERR_TIMEOUT', `${p.def.name}: ${where} after ${now - p.startedAt} ms`),
            'timeout',
          );
        }
      }
      this.#armSweep();
    }, interval);
    this.#sweepTimer.unref();
  }

  /**
   * Periodic control_ping. A missing answer counts only if nothing at all arrived meanwhile: a
   * large dump in progress delays the ping's reply without meaning VPP is gone.
   */
  #armHealthCheck(): void {
    if (this.#healthIntervalMs <= 0) return;
    this.#stopHealthCheck();
    this.#healthTimer = setInterval(() => {
      if (this.#state !== 'ready') return;
      const now = Date.now();
      if (this.#healthPingSentAt) {
        if (now - this.#healthPingSentAt > this.#healthTimeoutMs && this.#lastFrameAt < this.#healthPingSentAt) {
          this.#healthPingSentAt = 0;
          this.#transport?.destroy(new VppError('VPPNET_ERR_TIMEOUT', `health check: no answer from VPP for ${now - this.#lastFrameAt} ms`));
        }
        return;
      }
      this.#healthPingSentAt = now;
      this.ping({ timeoutMs: this.#healthTimeoutMs + this.#healthIntervalMs })
        .catch(() => undefined)
        .finally(() => {
          this.#healthPingSentAt = 0;
        });
    }, this.#healthIntervalMs);
    this.#healthTimer.unref();
  }

  #stopHealthCheck(): void {
    if (this.#healthTimer) clearInterval(this.#healthTimer);
    this.#healthTimer = undefined;
    this.#healthPingSentAt = 0;
  }

  /** Requests in flight or queued. */
  get pendingCount(): number {
    return this.#pending.size;
  }
}
