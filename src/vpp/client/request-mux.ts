/**
 * The request half of the client core: what travels over the connection.
 *
 * - Requests are pipelined and matched to replies by `context`; dumps end with `control_ping`;
 *   cursor services (`_get`) return their reply with the details; events go to subscriptions,
 *   which are re-established after every reconnect.
 * - A reply with a non-zero retval rejects its request with VppRetvalError: one request API, and
 *   the check costs nothing extra per request because it happens where the reply is decoded.
 * - Every request has a deadline: VPP silently drops some messages (unknown id, wrong
 *   client_index, short payload), so a missing reply must not hang the caller.
 * - After the connection drops, requests already written fail with VPPNET_ERR_CONN_LOST and are
 *   never replayed: add/del calls are not idempotent, and VPP may have lost all state. Requests
 *   not yet written wait in the offline queue and go out after the reconnect, encoded then with
 *   the new connection's ids.
 */
import Denque from 'denque';
import { typedChannel } from '../../util/typed-channel.js';
import { VppError } from '../errors.js';
import {
  contextOffsetOf,
  decodeMessage,
  decodeMessageAt,
  encodeFrameInto,
  encodeMessage,
  type FrameScratch,
} from '../codec/message-codec.js';
import type { Message, MessageDef } from '../codec/schema.js';
import { msg } from '../messages/index.js';
import type { ConnectionListener, VppConnection } from './connection.js';
import type { MessageTable } from './message-table.js';
import { ContextTable } from './context-table.js';
import { EventSubscription, type SubscriptionItem } from './event-subscription.js';
import { VppRetvalError } from './retval-error.js';
import type { VppTransport } from '../transport/transport.js';
import type { Timer, Timers } from '../../util/timers.js';
import type { WithReply } from './vpp-api.js';

type AnyRecord = Readonly<Record<string, unknown>>;

export type PendingKind = 'request' | 'dump' | 'get';

/** What `vppnet:vpp:request` publishes for each finished request. */
export interface RequestDiagnostic {
  readonly name: string;
  readonly durationMs: number;
  readonly outcome: 'ok' | 'retval' | 'timeout' | 'conn_lost' | 'error';
}

export const REQUEST_CHANNEL = typedChannel<RequestDiagnostic>('vppnet:vpp:request');
const requestChannel = REQUEST_CHANNEL;

/**
 * One unsettled request. A class with every field set in the constructor keeps all pending
 * entries one hidden class. Entries are reused: a settled one that was written goes back to the
 * mux's free list (one that settled while still queued may still sit in the queue, and is left
 * to the garbage collector), so a steady stream of requests allocates no Pending at all.
 */
class Pending {
  /** The connection generation the request was written on; 0 while still queued. */
  sentOn = 0;
  kind: PendingKind = 'request';
  context = 0;
  def: MessageDef = msg.control_ping;
  input: AnyRecord = EMPTY_INPUT;
  startedAt = 0;
  /**
   * performance.now() when it was asked for, for its diagnostic's duration: VPP answers most
   * requests within a millisecond, the resolution of the timers' clock. 0 when nobody listens.
   */
  startedPrecisely = 0;
  deadline = 0;
  /** The details message of a dump or cursor service; undefined for a plain request. */
  streamDef: MessageDef | undefined = undefined;
  /** What settles it: the reply, control_ping_reply for a dump, the `_get_reply` for a cursor. */
  endDef: MessageDef = msg.control_ping_reply;
  items: AnyRecord[] | undefined = undefined;
  /** For dumpEach(): each details message goes here instead of into `items`. */
  onItem: ((item: AnyRecord) => void) | undefined = undefined;
  /** For dumpEach() with a field selection: decodes its details messages (else the whole decoder). */
  decodeItem: ItemDecoder | undefined = undefined;
  resolve: (value: unknown) => void = settleNothing;
  reject: (err: Error) => void = settleNothing;
}

const EMPTY_INPUT: AnyRecord = Object.freeze({});

/** Decodes a details payload at `buf[start, end)`, e.g. only the fields a caller selected. */
export type ItemDecoder = (buf: Buffer, start: number, end: number) => AnyRecord;
const settleNothing = (): void => undefined;

/**
 * The executor of every request's promise: one function for all, so that making the promise
 * allocates no closure. It hands the resolving functions over through these two slots, which
 * enqueue() reads right after `new Promise` returns (the executor runs synchronously).
 */
let executorResolve: (value: unknown) => void = settleNothing;
let executorReject: (err: Error) => void = settleNothing;
function captureSettlers(resolve: (value: unknown) => void, reject: (err: Error) => void): void {
  executorResolve = resolve;
  executorReject = reject;
}

/** Free Pending entries kept for reuse; beyond this many, settled ones are left to the GC. */
const MAX_FREE_PENDING = 65_536;

interface FrameRoute {
  readonly def: MessageDef;
  /** Where the context is in the payload, or -1. */
  readonly contextOffset: number;
}

interface SubscriptionEntry {
  readonly wantDef: WithReply;
  readonly enableInput: AnyRecord;
  readonly disableInput: AnyRecord;
  /** Decodes one event frame into the subscription, typed by the subscription's own eventDef. */
  readonly deliver: (payload: Buffer) => void;
  readonly subscription: { push(item: SubscriptionItem<never>): void; end(): void };
}

export interface RequestMuxOptions {
  readonly requestTimeoutMs: number;
  /** Requests in flight plus queued; beyond this a request fails at once with VPPNET_ERR_QUEUE_FULL. */
  readonly maxPending: number;
  /** Queue requests while not connected, or fail them at once with VPPNET_ERR_NOT_CONNECTED. */
  readonly offlineQueue: boolean;
  /** Events buffered per subscription before it overflows. */
  readonly eventBufferSize: number;
  readonly timers: Timers;
}

export class RequestMux implements ConnectionListener {
  readonly #connection: VppConnection;
  readonly #requestTimeoutMs: number;
  readonly #sweepIntervalMs: number;
  readonly #maxPending: number;
  readonly #offlineQueue: boolean;
  readonly #eventBufferSize: number;
  readonly #timers: Timers;

  /** Every unsettled request, queued or written, by context (which it also hands out). */
  readonly #pending = new ContextTable<Pending>();
  /**
   * Requests not yet written: offline, or held back while the socket drains or the window is
   * full. A deque (denque, as ioredis queues its commands), not an array: a reconcile queues 100k
   * requests at once, and Array.prototype.shift on an array that large moves every element (V8
   * cannot trim large arrays in place): 4.2 s of a 100k-route pass went to #drain's shifts.
   */
  readonly #unsent = new Denque<Pending>();
  #blocked = false;
  readonly #subscriptions = new Set<SubscriptionEntry>();
  readonly #eventTargets = new Map<MessageDef, Set<SubscriptionEntry>>();
  #sweepTimer: Timer | undefined;
  #vppPid = 0;
  readonly #freePending: Pending[] = [];
  /** Where requests are encoded when the transport copies what it is sent (sendFrom). */
  readonly #scratch: FrameScratch = { buf: Buffer.allocUnsafe(4096) };

  constructor(connection: VppConnection, opts: RequestMuxOptions) {
    this.#connection = connection;
    this.#requestTimeoutMs = opts.requestTimeoutMs;
    this.#sweepIntervalMs = Math.min(250, Math.max(5, Math.floor(opts.requestTimeoutMs / 20)));
    this.#maxPending = opts.maxPending;
    this.#offlineQueue = opts.offlineQueue;
    this.#eventBufferSize = opts.eventBufferSize;
    this.#timers = opts.timers;
    connection.listen(this);
  }

  /** Requests in flight or queued. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** VPP's process id from the last control_ping_reply (0 until one arrived). */
  get vppPid(): number {
    return this.#vppPid;
  }

  allocContext(): number {
    // Wrapping after 4 billion requests is fine because contexts in flight are bounded by maxPending.
    return this.#pending.nextContext();
  }

  /**
   * Queues one request and resolves with what settles it: the reply ('request'; a non-zero
   * retval rejects), `{ reply, items }` ('dump', 'get'; the retval is the caller's to judge).
   */
  enqueue(
    kind: PendingKind,
    def: MessageDef,
    input: AnyRecord,
    timeoutMs: number | undefined,
    front = false,
    onItem?: (item: AnyRecord) => void,
    decodeItem?: ItemDecoder,
  ): Promise<unknown> {
    const state = this.#connection.state;
    if (state === 'closed' || (state === 'closing' && def !== msg.sockclnt_delete)) {
      return Promise.reject(new VppError('VPPNET_ERR_CLOSED', `${def.name}: client is closed`));
    }
    if (state !== 'ready' && !this.#offlineQueue) {
      return Promise.reject(
        new VppError('VPPNET_ERR_NOT_CONNECTED', `${def.name}: not connected to VPP (${state})`),
      );
    }
    if (this.#pending.size >= this.#maxPending) {
      return Promise.reject(
        new VppError('VPPNET_ERR_QUEUE_FULL', `${def.name}: ${this.#maxPending} requests already pending`),
      );
    }
    const now = this.#timers.now();
    const deadline = now + (timeoutMs ?? this.#requestTimeoutMs);
    let endDef: MessageDef | undefined;
    let streamDef: MessageDef | undefined;
    if (kind === 'request') endDef = def.reply;
    else {
      streamDef = def.stream;
      endDef = kind === 'dump' ? msg.control_ping_reply : def.reply;
      if (!streamDef)
        return Promise.reject(new VppError('VPPNET_ERR_UNKNOWN_MESSAGE', `${def.name} is not a dump`));
    }
    if (!endDef)
      return Promise.reject(new VppError('VPPNET_ERR_UNKNOWN_MESSAGE', `${def.name} has no reply message`));
    const promise = new Promise(captureSettlers);
    const p = this.#freePending.pop() ?? new Pending();
    p.sentOn = 0;
    p.kind = kind;
    p.context = this.allocContext();
    p.def = def;
    p.input = input;
    p.startedAt = now;
    p.startedPrecisely = requestChannel.hasSubscribers ? performance.now() : 0;
    p.deadline = deadline;
    p.streamDef = streamDef;
    p.endDef = endDef;
    p.items = kind === 'request' ? undefined : [];
    p.onItem = onItem;
    p.decodeItem = decodeItem;
    p.resolve = executorResolve;
    p.reject = executorReject;
    this.#pending.add(p);
    this.#armSweep();
    if (this.#canWrite() && this.#unsent.length === 0) this.#write(p);
    else if (front) this.#unsent.unshift(p);
    else this.#unsent.push(p);
    return promise;
  }

  /**
   * Sends `wantDef` with `enableInput` now and after every reconnect; routes each `eventDef`
   * message to the returned subscription.
   */
  async subscribe<E extends MessageDef>(
    wantDef: WithReply,
    enableInput: AnyRecord,
    eventDef: E,
    disableInput: AnyRecord | undefined,
  ): Promise<EventSubscription<Message<E>>> {
    const subscription: EventSubscription<Message<E>> = new EventSubscription<Message<E>>(
      this.#eventBufferSize,
      async () => {
        this.#subscriptions.delete(entry);
        this.#eventTargets.get(eventDef)?.delete(entry);
        if (this.#connection.state === 'ready')
          await this.enqueue('request', wantDef, entry.disableInput, undefined);
      },
    );
    const entry: SubscriptionEntry = {
      wantDef,
      enableInput,
      disableInput: disableInput ?? { ...enableInput, enable_disable: 0 },
      deliver: (payload) => subscription.push({ type: 'event', event: decodeMessage(eventDef, payload) }),
      subscription,
    };
    await this.enqueue('request', wantDef, enableInput, undefined);
    this.#subscriptions.add(entry);
    let targets = this.#eventTargets.get(eventDef);
    if (!targets) this.#eventTargets.set(eventDef, (targets = new Set()));
    targets.add(entry);
    return subscription;
  }

  // -------------------------------------------------------------------------------------------
  // ConnectionListener

  onReady(reconnect: boolean): void {
    if (reconnect) this.#resubscribe();
    this.#drain();
  }

  onDrain(): void {
    this.#drain();
  }

  onLost(err: Error | undefined): void {
    this.#blocked = false;
    const lost = new VppError(
      'VPPNET_ERR_CONN_LOST',
      `connection to VPP lost${err ? `: ${err.message}` : ''}; the request's outcome is unknown`,
      err ? { cause: err } : undefined,
    );
    // Written requests may or may not have been applied: fail them, never replay.
    for (const p of this.#pending.values()) if (p.sentOn !== 0) this.#settleError(p, lost, 'conn_lost');
  }

  async onClosing(goodbye: boolean): Promise<void> {
    for (const s of this.#subscriptions) s.subscription.end();
    this.#subscriptions.clear();
    this.#eventTargets.clear();
    // Requests never written are dropped now; written ones still get their replies before the goodbye.
    const closed = new VppError('VPPNET_ERR_CLOSED', 'client closed');
    const never = this.#unsent.toArray();
    this.#unsent.clear();
    for (const p of never) this.#settleError(p, closed, 'error');
    if (goodbye) {
      const bye = this.enqueue(
        'request',
        msg.sockclnt_delete,
        { index: this.#connection.clientIndex },
        1000,
        true,
      );
      await bye.catch(() => undefined);
    }
  }

  onEnded(err: Error): void {
    for (const p of this.#pending.values()) this.#settleError(p, err, 'error');
    this.#unsent.clear();
    this.#sweepTimer?.cancel();
    this.#sweepTimer = undefined;
  }

  probe(timeoutMs: number): Promise<unknown> {
    return this.enqueue('request', msg.control_ping, {}, timeoutMs);
  }

  // -------------------------------------------------------------------------------------------
  // Writing

  #resubscribe(): void {
    for (const entry of this.#subscriptions) {
      entry.subscription.push({ type: 'resync', reason: 'reconnected' });
      this.enqueue('request', entry.wantDef, entry.enableInput, undefined, true).catch((err: unknown) => {
        this.#connection.reportError(
          new VppError('VPPNET_ERR_CONN_LOST', `re-subscribing ${entry.wantDef.name} failed`, { cause: err }),
        );
      });
    }
  }

  /** Writes one request (and its control_ping for a dump), or fails it if the id is unknown here. */
  #write(p: Pending): void {
    const connection = this.#connection;
    const transport = connection.transport;
    const table = connection.table;
    if (!transport || !table) {
      this.#unsent.unshift(p);
      return;
    }
    const id = table.idOf(p.def);
    if (id === undefined) {
      this.#settleError(
        p,
        new VppError(
          'VPPNET_ERR_UNKNOWN_MESSAGE',
          `${p.def.name}_${p.def.crc} is not offered by the connected VPP`,
        ),
        'error',
      );
      return;
    }
    const clientIndex = connection.clientIndex;
    p.sentOn = connection.generation;
    let ok: boolean;
    try {
      ok = this.#send(transport, p.def, id, p.input, clientIndex, p.context);
    } catch (err) {
      p.sentOn = 0;
      this.#settleError(p, err as Error, 'error');
      return;
    }
    if (p.kind === 'dump') {
      const pingId = table.idOf(msg.control_ping) as number;
      ok = this.#send(transport, msg.control_ping, pingId, EMPTY_INPUT, clientIndex, p.context) && ok;
    }
    if (!ok) this.#blocked = true;
  }

  /**
   * Encodes and sends one frame: into the scratch buffer when the transport copies (no
   * allocation), else into a frame of its own. Throws VPPNET_ERR_ENCODE before sending anything.
   */
  #send(
    transport: VppTransport,
    def: MessageDef,
    id: number,
    input: AnyRecord,
    clientIndex: number,
    context: number,
  ): boolean {
    if (transport.sendFrom !== undefined) {
      const length = encodeFrameInto(this.#scratch, def, id, input, clientIndex, context);
      return transport.sendFrom(this.#scratch.buf, 0, length);
    }
    return transport.send(encodeMessage(def, id, input, { clientIndex, context }));
  }

  /** Writing is allowed when connected, and while closing for the goodbye itself. */
  #canWrite(): boolean {
    const state = this.#connection.state;
    return (
      !this.#blocked && this.#connection.table !== undefined && (state === 'ready' || state === 'closing')
    );
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

  /**
   * What onFrame needs of a message id, by id, for the current message table: its definition and
   * where its context is, found once instead of through three maps per frame. Rebuilt when the
   * table changes (every connect).
   */
  #routes: (FrameRoute | null | undefined)[] = [];
  #routesTable: MessageTable | undefined;

  #routeOf(table: MessageTable, id: number): FrameRoute | null {
    if (table !== this.#routesTable) {
      this.#routes = [];
      this.#routesTable = table;
    }
    let route = this.#routes[id];
    if (route === undefined) {
      const def = table.definitionOf(id);
      route = def ? { def, contextOffset: contextOffsetOf(def) } : null;
      this.#routes[id] = route;
    }
    return route;
  }

  onFrame(buf: Buffer, start: number, end: number): void {
    const connection = this.#connection;
    const table = connection.table;
    if (table === undefined) return;
    const route = this.#routeOf(table, buf.readUInt16BE(start));
    if (route === null) return; // a message vppnet has no definition for: nothing can be waiting for it
    const def = route.def;
    try {
      if (this.#eventTargets.size !== 0) {
        const targets = this.#eventTargets.get(def);
        if (targets) {
          for (const t of targets) t.deliver(buf.subarray(start, end));
          return;
        }
      }
      if (def === msg.memclnt_keepalive) {
        this.#answerKeepalive(buf.subarray(start, end));
        return;
      }
      const off = route.contextOffset;
      if (off < 0 || off + 4 > end - start) return;
      const p = this.#pending.get(buf.readUInt32BE(start + off));
      if (!p || p.sentOn !== connection.generation) return; // late reply to a request that timed out
      if (def === p.endDef) {
        const reply = decodeMessageAt(def, buf, start, end);
        this.#pending.delete(p);
        if (def === msg.control_ping_reply)
          this.#vppPid = (reply as Message<typeof msg.control_ping_reply>).vpe_pid;
        const { items, resolve, reject } = p;
        if (items === undefined) {
          const retval = typeof reply.retval === 'number' ? reply.retval : 0;
          if (retval === 0) {
            this.#publish(p, 'ok');
            this.#release(p);
            resolve(reply);
          } else {
            this.#publish(p, 'retval');
            const err = new VppRetvalError(p.def.name, retval, reply);
            this.#release(p);
            reject(err);
          }
        } else {
          this.#publish(p, 'ok');
          this.#release(p);
          resolve({ reply, items });
        }
      } else if (def === p.streamDef) {
        const item =
          p.decodeItem === undefined ? decodeMessageAt(def, buf, start, end) : p.decodeItem(buf, start, end);
        if (p.onItem) p.onItem(item);
        else p.items?.push(item);
      }
    } catch (err) {
      // A reply that does not decode fails its request; the connection itself stays usable.
      const off = route.contextOffset;
      const p =
        off >= 0 && off + 4 <= end - start ? this.#pending.get(buf.readUInt32BE(start + off)) : undefined;
      if (p) this.#settleError(p, err as Error, 'error');
    }
  }

  #answerKeepalive(payload: Buffer): void {
    const transport = this.#connection.transport;
    const id = this.#connection.table?.idOf(msg.memclnt_keepalive_reply);
    if (id === undefined || !transport) return;
    const { context } = decodeMessage(msg.memclnt_keepalive, payload);
    transport.send(encodeMessage(msg.memclnt_keepalive_reply, id, { retval: 0 }, { context }));
  }

  // -------------------------------------------------------------------------------------------
  // Deadlines and bookkeeping

  #settleError(p: Pending, err: Error, outcome: RequestDiagnostic['outcome']): void {
    if (!this.#pending.delete(p)) return;
    this.#publish(p, outcome);
    const reject = p.reject;
    this.#release(p);
    reject(err);
  }

  /** Forgets a settled request's references; back to the free list if it is in no queue. */
  #release(p: Pending): void {
    p.input = EMPTY_INPUT;
    p.items = undefined;
    p.onItem = undefined;
    p.decodeItem = undefined;
    p.resolve = settleNothing;
    p.reject = settleNothing;
    // Written once means no longer in #unsent: #drain takes an entry out before writing it.
    if (p.sentOn !== 0 && this.#freePending.length < MAX_FREE_PENDING) this.#freePending.push(p);
  }

  #publish(p: Pending, outcome: RequestDiagnostic['outcome']): void {
    if (!requestChannel.hasSubscribers) return;
    // A request asked for before the first subscriber came has no precise start.
    const durationMs =
      p.startedPrecisely === 0 ? this.#timers.now() - p.startedAt : performance.now() - p.startedPrecisely;
    const d: RequestDiagnostic = { name: p.def.name, durationMs, outcome };
    requestChannel.publish(d);
  }

  /** One timer for all deadlines, armed only while something is pending. */
  #armSweep(): void {
    if (this.#sweepTimer || this.#pending.size === 0) return;
    this.#sweepTimer = this.#timers.after(this.#sweepIntervalMs, this.#sweep);
    this.#sweepTimer.unref();
  }

  readonly #sweep = (): void => {
    this.#sweepTimer = undefined;
    const now = this.#timers.now();
    for (const p of this.#pending.values()) {
      if (p.deadline <= now) {
        const where = p.sentOn ? 'no reply from VPP' : `still queued (client ${this.#connection.state})`;
        this.#settleError(
          p,
          new VppError('VPPNET_ERR_TIMEOUT', `${p.def.name}: ${where} after ${now - p.startedAt} ms`),
          'timeout',
        );
      }
    }
    this.#armSweep();
  };
}
