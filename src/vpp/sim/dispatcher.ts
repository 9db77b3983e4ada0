/**
 * Turns one request payload into a handler call, the way VPP's `msg_handler_internal`
 * (src/vlibapi/api_shared.c, VPP 26.06) does:
 *
 * - unknown message id (or no handler): nothing happens, no reply ("no handler for msg id");
 * - a message shorter than its declared size (fixed part plus variable arrays by their counts,
 *   the generated `calc_size`): dropped, no reply ("Truncated message");
 * - otherwise the handler runs. Handlers look up `client_index` themselves
 *   (`vl_api_client_index_to_registration`); most reply through REPLY_MACRO, which performs the
 *   action first and then finds no registration for a wrong `client_index`, so the state change
 *   happens but no reply is sent. Dumps look the registration up first and do nothing without it.
 *
 * Replies go to the registration the request's `client_index` names, which is normally (but not
 * necessarily) the connection the request came in on.
 */
import { decodeMessage, encodeMessage } from '../codec/message-codec.js';
import type { Message, MessageDef, MessageInput } from '../codec/schema.js';
import type { Registration, SimConnection } from './api-server.js';
import type { MessageTable } from './message-table.js';
import { FRAME_HEADER_LENGTH } from '../wire/frame.js';

/** What a handler sees of one request. */
export interface ApiCall<M extends MessageDef> {
  readonly def: M;
  readonly conn: SimConnection;
  /** The registration `client_index` names (for sockclnt_create: the connection's own). */
  readonly reg: Registration | undefined;
  /** Raw `context`, echoed in replies and details. */
  readonly context: number;
  /** Sends M's reply to `reg` (no-op without a registration, like REPLY_MACRO). */
  reply(values: ReplyInput<M>): void;
  /** Sends one details message with this request's context to `reg`. */
  details<D extends MessageDef>(def: D, values: MessageInput<D>): void;
  /**
   * Sends D's fields under a fixed message id instead of D's own: for handlers where VPP sets
   * `_vl_msg_id` without its module's base, so the client receives another message's id.
   */
  detailsWithRawId<D extends MessageDef>(def: D, id: number, values: MessageInput<D>): void;
  /**
   * Sends a details frame encoded earlier (Dispatcher.encode, this table) with this request's
   * context: a handler dumping 100k unchanged entries re-encodes none of them.
   */
  detailsFrame(frame: Buffer): void;
}

/** A details message's context: after the frame header and the u16 message id. */
const DETAILS_CONTEXT_OFFSET = FRAME_HEADER_LENGTH + 2;

export type ReplyInput<M extends MessageDef> = M['reply'] extends MessageDef
  ? MessageInput<M['reply']>
  : never;

export type Handler<M extends MessageDef> = (m: Message<M>, call: ApiCall<M>) => void;

export interface DispatchHooks {
  registrationFor(clientIndex: number): Registration | undefined;
  /** Counts per message name (for inspection). */
  count(kind: 'handled' | 'unknown' | 'unhandled' | 'truncated', name: string): void;
}

/** Thrown by a handler to emulate VPP dying (e.g. a NULL/invalid FIB index dereferenced). */
export class VppCrash extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'VppCrash';
  }
}

/**
 * A registered handler with its definition: made by `on`, whose generic M carries the handler's
 * message type to the decode, so the handler gets the message type it declared.
 */
type Route = (conn: SimConnection, payload: Buffer) => void;

export class Dispatcher {
  readonly #routes = new Map<string, Route>();
  #table: MessageTable;
  readonly #hooks: DispatchHooks;

  constructor(table: MessageTable, hooks: DispatchHooks) {
    this.#table = table;
    this.#hooks = hooks;
  }

  get table(): MessageTable {
    return this.#table;
  }

  setTable(table: MessageTable): void {
    this.#table = table;
  }

  clearHandlers(): void {
    this.#routes.clear();
  }

  on<M extends MessageDef>(def: M, handler: Handler<M>): void {
    this.#routes.set(def.name, (conn, payload) => this.#run(def, handler, conn, payload));
  }

  /** Encodes a message with this process's id for it; undefined when it has none. */
  encode<D extends MessageDef>(
    def: D,
    values: MessageInput<D>,
    header: { context?: number; clientIndex?: number },
  ): Buffer | undefined {
    const id = this.#table.idOf(def);
    if (id === undefined) return undefined;
    return encodeMessage(def, id, values, header);
  }

  dispatch(conn: SimConnection, payload: Buffer): void {
    if (payload.length < 2) return;
    const entry = this.#table.byId(payload.readUInt16BE(0));
    if (!entry?.def) {
      this.#hooks.count('unknown', entry?.name ?? `#${payload.readUInt16BE(0)}`);
      return;
    }
    const route = this.#routes.get(entry.def.name);
    if (!route) {
      this.#hooks.count('unhandled', entry.def.name);
      return;
    }
    route(conn, payload);
  }

  /**
   * Decodes with the handler's definition: the table's for this id is the same object, as every
   * message has one generated definition (src/vpp/messages) and handlers register those.
   */
  #run<M extends MessageDef>(def: M, handler: Handler<M>, conn: SimConnection, payload: Buffer): void {
    let m: Message<M>;
    try {
      m = decodeMessage(def, payload);
    } catch {
      this.#hooks.count('truncated', def.name);
      return;
    }
    const fields: Message<MessageDef> = m;
    const hasClientIndex = def.fields[0]?.[0] === 'client_index';
    const reg = hasClientIndex
      ? this.#hooks.registrationFor(fields.client_index as number)
      : conn.registration;
    const context = typeof fields.context === 'number' ? fields.context : 0;
    this.#hooks.count('handled', def.name);
    const send = <D extends MessageDef>(d: D, values: MessageInput<D>): void => {
      if (!reg || reg.conn.closed) return;
      const frame = this.encode(d, values, { context });
      if (frame) reg.conn.push(frame);
    };
    const call: ApiCall<M> = {
      def,
      conn,
      reg,
      context,
      reply: (values) => {
        if (def.reply) send(def.reply, values as MessageInput<MessageDef>);
      },
      details: send,
      detailsWithRawId: (d, id, values) => {
        if (!reg || reg.conn.closed) return;
        reg.conn.push(encodeMessage(d, id, values, { context }));
      },
      detailsFrame: (frame) => {
        if (!reg || reg.conn.closed) return;
        reg.conn.pushWith(frame, DETAILS_CONTEXT_OFFSET, context);
      },
    };
    handler(m, call);
  }
}
