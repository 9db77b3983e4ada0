/**
 * A VppApi for unit tests that never touches a socket: it records every request and answers from
 * handlers the test registers per message. It keeps the real client's contract where a test could
 * notice: a non-zero retval rejects with VppRetvalError, requests fail unless the state is
 * 'ready', and the state moves (and emits) only along the client's legal transitions, driven by
 * the test (handshake, drop, failAttempt). Tests that need VPP's behaviour use the simulator.
 */
import { EventEmitter } from 'node:events';
import { VppError } from '../../errors.js';
import type { Message, MessageDef, MessageInput } from '../../codec/schema.js';
import type { Selected, Selection } from '../../codec/selection.js';
import { msg } from '../../messages/index.js';
import { canTransition, type ConnectionState } from '../connection-state.js';
import { EventSubscription, type SubscriptionItem } from '../event-subscription.js';
import { VppRetvalError } from '../retval-error.js';
import type {
  DumpOptions,
  ManagedVppApi,
  ReplyMessage,
  RequestOptions,
  StreamMessage,
  VppClientEvents,
  WithReply,
  WithStream,
} from '../vpp-api.js';

type AnyRecord = Readonly<Record<string, unknown>>;

export interface RecordedRequest {
  /** 'call' for call/cli/ping, 'dump' for dump/dumpEach/getAll, 'subscribe' for the want_ message. */
  readonly kind: 'call' | 'dump' | 'subscribe';
  readonly def: MessageDef;
  readonly input: AnyRecord;
}

/** Method syntax keeps the parameter bivariant, so typed handlers of any message fit one map. */
interface Responder {
  respond(input: AnyRecord): unknown;
}

/** An open subscription; `push` in method syntax accepts any subscription's event type. */
interface SubscriptionTarget {
  readonly eventDef: MessageDef;
  readonly sub: { push(item: SubscriptionItem<AnyRecord>): void; end(): void };
}

export interface RecordingVppApiOptions {
  /** Initial state without transitions; 'ready' for code that just issues requests. */
  readonly state?: ConnectionState;
  readonly vppPid?: number;
}

export class RecordingVppApi implements ManagedVppApi {
  /** Every request, in the order issued. */
  readonly requests: RecordedRequest[] = [];
  /** start() calls. */
  started = 0;
  /** close() calls. */
  closed = 0;
  /** Called inside close(), e.g. to record the order of events. */
  onClose: () => void = () => undefined;

  readonly #events = new EventEmitter();
  readonly #replies = new Map<MessageDef, Responder>();
  readonly #details = new Map<MessageDef, Responder>();
  readonly #unsupported = new Set<MessageDef>();
  readonly #subscriptions: SubscriptionTarget[] = [];
  #state: ConnectionState;
  #vppPid: number;

  constructor(opts: RecordingVppApiOptions = {}) {
    this.#state = opts.state ?? 'idle';
    this.#vppPid = opts.vppPid ?? 4242;
  }

  // -------------------------------------------------------------------------------------------
  // What the test sets up

  /**
   * Answers `def` with the handler's fields over `{ retval: 0 }`; a handler may return a
   * non-zero retval (the call then rejects with VppRetvalError) or throw (the call rejects).
   */
  answer<M extends WithReply>(def: M, handler: (input: MessageInput<M>) => Partial<ReplyMessage<M>>): this {
    this.#replies.set(def, { respond: handler });
    return this;
  }

  /** Answers the dump (or cursor service) `def` with these details. */
  answerDump<M extends WithStream>(
    def: M,
    handler: (input: MessageInput<M>) => readonly Partial<StreamMessage<M>>[],
  ): this {
    this.#details.set(def, { respond: handler });
    return this;
  }

  /** As if the connected VPP lacked these messages (supports() false, pick() skips them). */
  withoutMessages(...defs: readonly MessageDef[]): this {
    for (const d of defs) this.#unsupported.add(d);
    return this;
  }

  /** Delivers an event to every open subscription for `eventDef`. */
  emit<E extends MessageDef>(eventDef: E, event: Message<E>): void {
    for (const s of this.#subscriptions) if (s.eventDef === eventDef) s.sub.push({ type: 'event', event });
  }

  /** The recorded requests for one message. */
  requestsFor(def: MessageDef): AnyRecord[] {
    return this.requests.filter((r) => r.def === def).map((r) => r.input);
  }

  // -------------------------------------------------------------------------------------------
  // Connection events the test drives

  /** A successful handshake; a VPP restart is `handshake({ pid: newPid })` after `drop()`. */
  handshake(opts: { readonly pid?: number } = {}): void {
    const reconnect = this.#state === 'reconnecting';
    if (opts.pid !== undefined) this.#vppPid = opts.pid;
    if (this.#state !== 'connecting') this.#setState('connecting');
    this.#setState('ready');
    if (reconnect) for (const s of this.#subscriptions) s.sub.push({ type: 'resync', reason: 'reconnected' });
    this.#events.emit('ready', { reconnect, compatibility: { compatible: [], incompatible: [] } });
  }

  /** The connection broke (by default as a socket reset would); the real client would now retry. */
  drop(err: Error = new Error('ECONNRESET')): void {
    this.#reportError(err);
    this.#setState('reconnecting');
  }

  /** A failed connection attempt. */
  failAttempt(err: Error): void {
    this.#reportError(err);
    if (this.#state === 'connecting') this.#setState('reconnecting');
  }

  // -------------------------------------------------------------------------------------------
  // ManagedVppApi

  get state(): ConnectionState {
    return this.#state;
  }

  get vppPid(): number {
    return this.#vppPid;
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

  start(): void {
    this.started++;
    if (this.#state === 'idle') this.#setState('connecting');
  }

  close(): Promise<void> {
    this.closed++;
    this.onClose();
    if (this.#state !== 'closed') {
      if (this.#state !== 'closing') this.#setState('closing');
      this.#setState('closed');
    }
    for (const s of this.#subscriptions.splice(0)) s.sub.end();
    return Promise.resolve();
  }

  call<M extends WithReply>(
    def: M,
    input: MessageInput<M>,
    _opts?: RequestOptions,
  ): Promise<ReplyMessage<M>> {
    return this.#call(def, input, 'call') as Promise<ReplyMessage<M>>;
  }

  dump<M extends WithStream>(
    def: M,
    input: MessageInput<M>,
    _opts?: RequestOptions,
  ): Promise<StreamMessage<M>[]> {
    return this.#dump(def, input) as Promise<StreamMessage<M>[]>;
  }

  /** `opts.fields` is not applied: whole messages have every selected field, and more. */
  async dumpEach<M extends WithStream, const S extends Selection<StreamMessage<M>> = true>(
    def: M,
    input: MessageInput<M>,
    onDetails: (details: Selected<StreamMessage<M>, S>) => void,
    opts?: DumpOptions<S>,
  ): Promise<number> {
    const all = await this.dump(def, input, opts);
    for (const d of all) onDetails(d as Selected<StreamMessage<M>, S>);
    return all.length;
  }

  getAll<M extends WithReply & WithStream>(
    def: M,
    input: MessageInput<M>,
    _opts?: RequestOptions,
  ): Promise<StreamMessage<M>[]> {
    return this.#dump(def, input) as Promise<StreamMessage<M>[]>;
  }

  async cli(command: string, opts?: RequestOptions): Promise<string> {
    const reply = await this.call(msg.cli_inband, { cmd: command }, opts);
    return reply.reply ?? '';
  }

  async ping(opts?: RequestOptions): Promise<void> {
    await this.call(msg.control_ping, {}, opts);
  }

  async subscribe<W extends WithReply, E extends MessageDef>(
    wantDef: W,
    enableInput: MessageInput<W>,
    eventDef: E,
    disableInput?: MessageInput<W>,
  ): Promise<EventSubscription<Message<E>>> {
    await this.#call(wantDef, enableInput, 'subscribe');
    const off = (disableInput as AnyRecord | undefined) ?? {
      ...(enableInput as AnyRecord),
      enable_disable: 0,
    };
    const sub: EventSubscription<Message<E>> = new EventSubscription<Message<E>>(
      Number.MAX_SAFE_INTEGER,
      async () => {
        const i = this.#subscriptions.findIndex((s) => s.sub === sub);
        if (i >= 0) this.#subscriptions.splice(i, 1);
        if (this.#state === 'ready') await this.#call(wantDef, off, 'subscribe');
      },
    );
    this.#subscriptions.push({ eventDef, sub });
    return sub;
  }

  supports(def: MessageDef): boolean {
    return !this.#unsupported.has(def);
  }

  pick<M extends MessageDef>(alternatives: readonly M[]): M {
    for (const def of alternatives) if (this.supports(def)) return def;
    throw new VppError(
      'VPPNET_ERR_INCOMPATIBLE',
      `VPP supports none of ${alternatives.map((d) => d.name).join(', ')}`,
    );
  }

  // -------------------------------------------------------------------------------------------

  #refuse(def: MessageDef): Error | undefined {
    if (this.#state === 'closed' || this.#state === 'closing') {
      return new VppError('VPPNET_ERR_CLOSED', `${def.name}: client is closed`);
    }
    if (this.#state !== 'ready') {
      return new VppError('VPPNET_ERR_NOT_CONNECTED', `${def.name}: not connected to VPP (${this.#state})`);
    }
    if (!this.supports(def)) {
      return new VppError(
        'VPPNET_ERR_UNKNOWN_MESSAGE',
        `${def.name}_${def.crc} is not offered by the connected VPP`,
      );
    }
    return undefined;
  }

  #call(def: MessageDef, input: AnyRecord, kind: RecordedRequest['kind']): Promise<AnyRecord> {
    this.requests.push({ kind, def, input });
    try {
      const refused = this.#refuse(def);
      if (refused) throw refused;
      const defaults: AnyRecord =
        def === msg.control_ping ? { retval: 0, vpe_pid: this.#vppPid } : { retval: 0 };
      const reply: AnyRecord = {
        ...defaults,
        ...(this.#replies.get(def)?.respond(input) as AnyRecord | undefined),
      };
      const retval = typeof reply.retval === 'number' ? reply.retval : 0;
      if (retval !== 0) throw new VppRetvalError(def.name, retval, reply);
      return Promise.resolve(reply);
    } catch (err: unknown) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  #dump(def: MessageDef, input: AnyRecord): Promise<readonly AnyRecord[]> {
    this.requests.push({ kind: 'dump', def, input });
    try {
      const refused = this.#refuse(def);
      if (refused) throw refused;
      return Promise.resolve(
        (this.#details.get(def)?.respond(input) as readonly AnyRecord[] | undefined) ?? [],
      );
    } catch (err: unknown) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Like the real client: 'error' only when someone listens (an unheard 'error' would throw). */
  #reportError(err: Error): void {
    if (this.#events.listenerCount('error') > 0) this.#events.emit('error', err);
  }

  #setState(to: ConnectionState): void {
    const from = this.#state;
    if (!canTransition(from, to))
      throw new Error(`RecordingVppApi: illegal state transition ${from} -> ${to}`);
    this.#state = to;
    this.#events.emit('state', to, from);
  }
}
