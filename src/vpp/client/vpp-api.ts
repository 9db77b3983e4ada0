/**
 * What code above the client (descriptors, the snapshot loader, the reconciler, the agent, the
 * CLI) may ask of a VPP connection. VppClient implements it over a socket; tests use
 * testing/recording-vpp-api.ts. Depending on this interface, not the class, keeps fakes honest:
 * they implement the same contract instead of subclassing the real client.
 */
import type { Message, MessageDef, MessageInput } from '../codec/schema.js';
import type { Selected, Selection } from '../codec/selection.js';
import type { ConnectionState } from './connection-state.js';
import type { EventSubscription } from './event-subscription.js';
import type { CompatibilityReport } from './message-table.js';

export interface RequestOptions {
  readonly timeoutMs?: number;
}

export interface DumpOptions<S> extends RequestOptions {
  /**
   * Only these fields of each details message are decoded (see codec/selection.ts); the rest is
   * skipped on the wire. Keep the selection in a constant: it is compiled once per object.
   */
  readonly fields?: S;
  /**
   * Each details message handed to the callback is the same object, overwritten by the next one
   * (codec/selection.ts, reusingDecoder): read it in the callback and keep nothing of it. For
   * fixed-size details with `fields` (100k steering entries: no objects per entry).
   */
  readonly reuse?: boolean;
}

export type WithReply = MessageDef & { readonly reply: MessageDef };
export type WithStream = MessageDef & { readonly stream: MessageDef };
export type ReplyMessage<M extends WithReply> = Message<M['reply']>;
export type StreamMessage<M extends WithStream> = Message<M['stream']>;

export interface VppClientEvents {
  state: (to: ConnectionState, from: ConnectionState) => void;
  /** Each successful handshake; `reconnect` is false for the first. */
  ready: (info: { readonly reconnect: boolean; readonly compatibility: CompatibilityReport }) => void;
  /** A connection attempt or an established connection failed; the client retries per strategy. */
  error: (err: Error) => void;
}

export interface VppApi {
  readonly state: ConnectionState;
  /** VPP's process id from the last control_ping_reply (0 until one arrived). */
  readonly vppPid: number;

  on<E extends keyof VppClientEvents>(event: E, listener: VppClientEvents[E]): this;
  off<E extends keyof VppClientEvents>(event: E, listener: VppClientEvents[E]): this;
  once<E extends keyof VppClientEvents>(event: E, listener: VppClientEvents[E]): this;

  /**
   * Sends a request and resolves with its reply. A non-zero retval rejects with VppRetvalError
   * (message name, retval, VPP's name for it, and the reply); a caller that expects one catches it.
   */
  call<M extends WithReply>(def: M, input: MessageInput<M>, opts?: RequestOptions): Promise<ReplyMessage<M>>;
  /** Runs a dump (`X_dump` + `control_ping`) and resolves with all its details. */
  dump<M extends WithStream>(
    def: M,
    input: MessageInput<M>,
    opts?: RequestOptions,
  ): Promise<StreamMessage<M>[]>;
  /**
   * Runs a dump, handing each details message to `onDetails` and keeping none; resolves with the
   * count. With `opts.fields`, each message has only the selected fields (an implementation may
   * give more).
   */
  dumpEach<M extends WithStream, const S extends Selection<StreamMessage<M>> = true>(
    def: M,
    input: MessageInput<M>,
    onDetails: (details: Selected<StreamMessage<M>, S>) => void,
    opts?: DumpOptions<S>,
  ): Promise<number>;
  /** Follows a cursor service (`X_get` → details… → `X_get_reply`) to its end. */
  getAll<M extends WithReply & WithStream>(
    def: M,
    input: MessageInput<M>,
    opts?: RequestOptions,
  ): Promise<StreamMessage<M>[]>;
  /** Runs a CLI command through cli_inband: for diagnostics, never for configuration. */
  cli(command: string, opts?: RequestOptions): Promise<string>;
  /** A control_ping round trip: proves VPP's main thread is answering this connection. */
  ping(opts?: RequestOptions): Promise<void>;
  /**
   * Subscribes to events: sends `wantDef` with `enableInput` now and after every reconnect, and
   * yields each `eventDef` message. `disableInput` is sent on close (default: enable_disable 0).
   */
  subscribe<W extends WithReply, E extends MessageDef>(
    wantDef: W,
    enableInput: MessageInput<W>,
    eventDef: E,
    disableInput?: MessageInput<W>,
  ): Promise<EventSubscription<Message<E>>>;
  /** Whether the connected VPP has this exact message (name and CRC). */
  supports(def: MessageDef): boolean;
  /** The first of `alternatives` the connected VPP supports, e.g. [sr_policy_add_v2, sr_policy_add]. */
  pick<M extends MessageDef>(alternatives: readonly M[]): M;
}

/** A VppApi whose holder runs its lifecycle: the agent starts the client it is given and closes it. */
export interface ManagedVppApi extends VppApi {
  /** Starts connecting in the background; reconnects by itself whenever the connection drops. */
  start(): void;
  /** Ends the session; requests still pending fail with VPPNET_ERR_CLOSED. */
  close(): Promise<void>;
}
