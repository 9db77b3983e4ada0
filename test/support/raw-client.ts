/**
 * A deliberately small API client for tests of the simulator (and of a real VPP): it writes
 * frames as given and collects every payload that comes back, in order, with nothing in between
 * that could hide a wrong byte. No context matching, no retries, no timeouts beyond waiting.
 */
import net from 'node:net';
import { decodeMessage, encodeMessage } from '../../src/vpp/codec/message-codec.js';
import type { Message, MessageDef, MessageInput } from '../../src/vpp/codec/schema.js';
import { msg } from '../../src/vpp/messages/index.js';
import { FrameParser } from '../../src/vpp/wire/frame.js';

export class RawClient {
  readonly socket: net.Socket;
  /** Every payload received (copies), in arrival order. */
  readonly received: Buffer[] = [];
  /** Bytes read from the socket so far. */
  bytesRead = 0;
  /** Sizes of the socket reads, to see how the server cut its writes. */
  readonly readSizes: number[] = [];
  /** Set after a successful handshake. */
  clientIndex = 0;
  table = new Map<string, number>();
  #parser = new FrameParser();
  #waiters: (() => void)[] = [];
  #closed = false;
  readonly closed: Promise<void>;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.readSizes.push(chunk.length);
      this.bytesRead += chunk.length;
      this.#parser.push(chunk, (p) => this.received.push(Buffer.from(p)));
      this.#wake();
    });
    this.closed = new Promise((resolve) => {
      socket.on('close', () => {
        this.#closed = true;
        this.#wake();
        resolve();
      });
    });
    socket.on('error', () => undefined);
  }

  static connect(socketPath: string): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const s = net.createConnection(socketPath);
      s.once('connect', () => {
        s.off('error', reject);
        resolve(new RawClient(s));
      });
      s.once('error', reject);
    });
  }

  get isClosed(): boolean {
    return this.#closed;
  }

  #wake(): void {
    const w = this.#waiters;
    this.#waiters = [];
    for (const f of w) f();
  }

  /** Writes one payload with its 16-byte header. */
  sendPayload(payload: Buffer): void {
    const h = Buffer.alloc(16);
    h.writeUInt32BE(payload.length, 8);
    this.socket.write(Buffer.concat([h, payload]));
  }

  /** Writes bytes as they are (whole frames, pieces, several at once). */
  sendRaw(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /**
   * ip_route_add_del frames adding `count` /32s (10.x.y.z from index `first`) to `table`, each a
   * lookup in table 0, with contexts from `context` on: one buffer, for a single write.
   */
  routeAddFrames(table: number, count: number, first: number, context: number): Buffer {
    const id = this.idOf(msg.ip_route_add_del);
    const frames: Buffer[] = [];
    for (let i = 0; i < count; i++) {
      const n = first + i;
      const ip4 = `10.${(n >> 16) & 0xff}.${(n >> 8) & 0xff}.${n & 0xff}`;
      frames.push(
        encodeMessage(
          msg.ip_route_add_del,
          id,
          {
            is_add: true,
            route: {
              table_id: table,
              prefix: { address: { af: 0, un: { ip4 } }, len: 32 },
              paths: [{ sw_if_index: 0xffffffff, table_id: 0 }],
            },
          },
          { context: context + i, clientIndex: this.clientIndex },
        ),
      );
    }
    return Buffer.concat(frames);
  }

  /** Resolves once `bytes` bytes have been read in total (or rejects after `timeoutMs`). */
  async waitForBytes(bytes: number, timeoutMs = 2000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.bytesRead < bytes) {
      if (this.#closed) throw new Error(`connection closed with ${this.bytesRead}/${bytes} bytes`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out with ${this.bytesRead}/${bytes} bytes`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Resolves once `count` payloads have arrived in total (or rejects after `timeoutMs`). */
  async waitForCount(count: number, timeoutMs = 2000): Promise<Buffer[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (this.#closed) throw new Error(`connection closed with ${this.received.length}/${count} payloads`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out with ${this.received.length}/${count} payloads`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return this.received.slice(0, count);
  }

  /**
   * How many payloads arrive before the reply to a control_ping sent now. VPP (and the simulator)
   * handles a connection's messages in order and answers in order, so 0 proves that everything
   * sent before was handled without an answer: no waiting for "nothing happened".
   */
  async answeredBeforePing(context = 0x7e57): Promise<number> {
    const start = this.received.length;
    this.send(msg.control_ping, {}, context);
    const pingId = this.idOf(msg.control_ping_reply);
    for (;;) {
      const at = this.received
        .slice(start)
        .findIndex((p) => p.readUInt16BE(0) === pingId && p.readUInt32BE(2) === context);
      if (at >= 0) return at;
      await this.waitForCount(this.received.length + 1);
    }
  }

  /** sockclnt_create with the fixed id 15; keeps the handle and the table. */
  async handshake(name = 'raw-client', context = 0x7c): Promise<Message<typeof msg.sockclnt_create_reply>> {
    const start = this.received.length;
    this.sendRaw(encodeMessage(msg.sockclnt_create, 15, { name }, { context }));
    await this.waitForCount(start + 1, 5000);
    const reply = decodeMessage(msg.sockclnt_create_reply, this.received[start] as Buffer);
    this.clientIndex = reply.index;
    this.table = new Map(reply.message_table.map((e) => [e.name, e.index]));
    return reply;
  }

  idOf(def: MessageDef): number {
    const id = this.table.get(`${def.name}_${def.crc}`);
    if (id === undefined) throw new Error(`${def.name}_${def.crc} not in the table`);
    return id;
  }

  /** Encodes and writes a request with this client's handle and the table's id. */
  send<M extends MessageDef>(
    def: M,
    input: MessageInput<M>,
    context: number,
    clientIndex = this.clientIndex,
  ): void {
    this.sendRaw(encodeMessage(def, this.idOf(def), input, { context, clientIndex }));
  }

  /** Sends a request and waits for exactly `replies` more payloads. */
  async call<M extends MessageDef>(
    def: M,
    input: MessageInput<M>,
    context: number,
    replies = 1,
  ): Promise<Buffer[]> {
    const start = this.received.length;
    this.send(def, input, context);
    await this.waitForCount(start + replies);
    return this.received.slice(start, start + replies);
  }

  /** A dump: the request, then control_ping with the same context; returns details and the ping reply. */
  async dump<M extends MessageDef>(def: M, input: MessageInput<M>, context: number): Promise<Buffer[]> {
    const start = this.received.length;
    this.send(def, input, context);
    this.send(msg.control_ping, {}, context);
    const pingId = this.idOf(msg.control_ping_reply);
    const deadline = Date.now() + 5000;
    for (;;) {
      const got = this.received.slice(start);
      const at = got.findIndex((p) => p.readUInt16BE(0) === pingId && p.readUInt32BE(2) === context);
      if (at >= 0) return got.slice(0, at + 1);
      if (Date.now() > deadline) throw new Error('dump did not end');
      await this.waitForCount(this.received.length + 1, deadline - Date.now());
    }
  }

  close(): void {
    this.socket.destroy();
  }
}
