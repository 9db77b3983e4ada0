/**
 * The client core: VppApi over VPP's binary API socket. It composes two halves:
 * - connection.ts: transport (injected), handshake, message table, states, reconnect, health;
 * - request-mux.ts: contexts, queues, deadlines, frame routing, subscriptions.
 * This class holds the options' defaults and the typed request API, and nothing else.
 */
import { VppError } from '../errors.js';
import type { Message, MessageDef, MessageInput } from '../codec/schema.js';
import { reusingDecoder, selectingDecoder, type Selected, type Selection } from '../codec/selection.js';
import { msg } from '../messages/index.js';
import type { TransportFactory } from '../transport/transport.js';
import { UnixSocketTransport, type ReadGate } from '../transport/unix-socket-transport.js';
import { VppConnection } from './connection.js';
import { defaultRetryStrategy, type ConnectionState } from './connection-state.js';
import type { EventSubscription } from './event-subscription.js';
import type { CompatibilityReport } from './message-table.js';
import { RequestMux, type ItemDecoder } from './request-mux.js';
import { VppRetvalError } from './retval-error.js';
import { systemTimers, type Timers } from '../../util/timers.js';
import type {
  DumpOptions,
  ManagedVppApi,
  ReplyMessage,
  RequestOptions,
  StreamMessage,
  VppClientEvents,
  WithReply,
  WithStream,
} from './vpp-api.js';

export type { RequestDiagnostic } from './request-mux.js';
export type { DumpOptions, RequestOptions, VppClientEvents } from './vpp-api.js';

export const DEFAULT_SOCKET_PATH = '/run/vpp/api.sock';

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
  /** Makes the transport of each connection attempt; default: a UnixSocketTransport. */
  readonly transportFactory?: TransportFactory;
  /**
   * The default transport's readGate (UnixSocketTransportOptions): a client for low-priority
   * reads stops reading while it returns a promise. Ignored with a transportFactory.
   */
  readonly readGate?: ReadGate;
  /** Clock and timers for deadlines, health checks and backoff; default: Node's. */
  readonly timers?: Timers;
}

const unixSocketTransport =
  (readGate: ReadGate | undefined): TransportFactory =>
  (target) =>
    new UnixSocketTransport({
      path: target.path,
      connectTimeoutMs: target.connectTimeoutMs,
      ...(readGate === undefined ? {} : { readGate }),
    });

type AnyRecord = Readonly<Record<string, unknown>>;

export class VppClient implements ManagedVppApi {
  readonly #connection: VppConnection;
  readonly #mux: RequestMux;

  constructor(opts: VppClientOptions = {}) {
    const timers = opts.timers ?? systemTimers;
    this.#connection = new VppConnection({
      socketPath: opts.socketPath ?? DEFAULT_SOCKET_PATH,
      clientName: opts.clientName ?? 'vppnet',
      requiredMessages: opts.requiredMessages ?? [],
      connectTimeoutMs: opts.connectTimeoutMs ?? 5_000,
      retryStrategy: opts.retryStrategy ?? defaultRetryStrategy,
      healthCheckIntervalMs: opts.healthCheckIntervalMs ?? 5_000,
      healthCheckTimeoutMs: opts.healthCheckTimeoutMs ?? 3_000,
      transportFactory: opts.transportFactory ?? unixSocketTransport(opts.readGate),
      timers,
    });
    this.#mux = new RequestMux(this.#connection, {
      requestTimeoutMs: opts.requestTimeoutMs ?? 10_000,
      maxPending: opts.maxPending ?? 100_000,
      offlineQueue: opts.offlineQueue ?? true,
      eventBufferSize: opts.eventBufferSize ?? 10_000,
      timers,
    });
  }

  // -------------------------------------------------------------------------------------------
  // State and lifecycle

  get state(): ConnectionState {
    return this.#connection.state;
  }

  get vppPid(): number {
    return this.#mux.vppPid;
  }

  /** The report of the last handshake. */
  get compatibility(): CompatibilityReport {
    return this.#connection.compatibility;
  }

  /** Requests in flight or queued. */
  get pendingCount(): number {
    return this.#mux.pendingCount;
  }

  on<E extends keyof VppClientEvents>(event: E, listener: VppClientEvents[E]): this {
    this.#connection.on(event, listener);
    return this;
  }

  off<E extends keyof VppClientEvents>(event: E, listener: VppClientEvents[E]): this {
    this.#connection.off(event, listener);
    return this;
  }

  once<E extends keyof VppClientEvents>(event: E, listener: VppClientEvents[E]): this {
    this.#connection.once(event, listener);
    return this;
  }

  /**
   * Connects once: resolves when the handshake succeeded, rejects with the first failure (the
   * socket's errno error, VPPNET_ERR_INCOMPATIBLE, ...). After success the client reconnects by
   * itself whenever the connection drops.
   */
  connect(): Promise<void> {
    return this.#connection.connect();
  }

  /**
   * Starts connecting in the background and keeps retrying per the retry strategy; use
   * `whenReady()` to wait. For an agent that may start before VPP does.
   */
  start(): void {
    this.#connection.start();
  }

  /** Resolves when the client is ready; rejects when it closes first or after `timeoutMs`. */
  whenReady(timeoutMs?: number): Promise<void> {
    return this.#connection.whenReady(timeoutMs);
  }

  /** Ends the session politely (sockclnt_delete), fails what is left, stops reconnecting. */
  close(): Promise<void> {
    return this.#connection.close();
  }

  // -------------------------------------------------------------------------------------------
  // Requests

  call<M extends WithReply>(def: M, input: MessageInput<M>, opts?: RequestOptions): Promise<ReplyMessage<M>> {
    return this.#mux.enqueue('request', def, input, opts?.timeoutMs) as Promise<ReplyMessage<M>>;
  }

  async dump<M extends WithStream>(
    def: M,
    input: MessageInput<M>,
    opts?: RequestOptions,
  ): Promise<StreamMessage<M>[]> {
    const result = (await this.#mux.enqueue('dump', def, input, opts?.timeoutMs)) as { items: AnyRecord[] };
    return result.items as StreamMessage<M>[];
  }

  /**
   * Runs a dump and hands each details message to `onDetails` as it arrives, keeping none: for
   * dumps too large to hold at once (100k steering entries). Resolves with the count.
   */
  async dumpEach<M extends WithStream, const S extends Selection<StreamMessage<M>> = true>(
    def: M,
    input: MessageInput<M>,
    onDetails: (details: Selected<StreamMessage<M>, S>) => void,
    opts?: DumpOptions<S>,
  ): Promise<number> {
    let n = 0;
    const each = (item: AnyRecord): void => {
      n++;
      onDetails(item as Selected<StreamMessage<M>, S>);
    };
    const fields = opts?.fields;
    const decode = opts?.reuse
      ? (reusingDecoder(def.stream, (fields ?? true) as never) as ItemDecoder)
      : fields === undefined || fields === true
        ? undefined
        : (selectingDecoder(def.stream, fields as never) as ItemDecoder);
    await this.#mux.enqueue('dump', def, input, opts?.timeoutMs, false, each, decode);
    return n;
  }

  /**
   * Follows a cursor service (`X_get` → details… → `X_get_reply`, retval -165 = more) to its end.
   * `cursor` is the name of the cursor field in both request and reply.
   */
  async getAll<M extends WithReply & WithStream>(
    def: M,
    input: MessageInput<M>,
    opts?: RequestOptions,
  ): Promise<StreamMessage<M>[]> {
    const all: AnyRecord[] = [];
    let cursorInput: AnyRecord = { ...(input as AnyRecord), cursor: 0 };
    for (;;) {
      const { reply, items } = (await this.#mux.enqueue('get', def, cursorInput, opts?.timeoutMs)) as {
        reply: AnyRecord;
        items: AnyRecord[];
      };
      all.push(...items);
      const retval = reply.retval as number;
      if (retval === 0) return all as StreamMessage<M>[];
      if (retval !== VNET_EAGAIN) throw new VppRetvalError(def.name, retval, reply);
      cursorInput = { ...cursorInput, cursor: reply.cursor };
    }
  }

  async cli(command: string, opts?: RequestOptions): Promise<string> {
    const reply = await this.call(msg.cli_inband, { cmd: command }, opts);
    return reply.reply;
  }

  async ping(opts?: RequestOptions): Promise<void> {
    // The mux notes the reply's vpe_pid (vppPid).
    await this.call(msg.control_ping, {}, opts);
  }

  supports(def: MessageDef): boolean {
    return this.#connection.table?.has(def) ?? false;
  }

  pick<M extends MessageDef>(alternatives: readonly M[]): M {
    for (const def of alternatives) if (this.supports(def)) return def;
    throw new VppError(
      'VPPNET_ERR_INCOMPATIBLE',
      `VPP supports none of ${alternatives.map((d) => `${d.name}_${d.crc}`).join(', ')}`,
    );
  }

  subscribe<W extends WithReply, E extends MessageDef>(
    wantDef: W,
    enableInput: MessageInput<W>,
    eventDef: E,
    disableInput?: MessageInput<W>,
  ): Promise<EventSubscription<Message<E>>> {
    return this.#mux.subscribe(wantDef, enableInput, eventDef, disableInput);
  }
}
