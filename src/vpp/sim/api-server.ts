/**
 * The API socket side of the simulator: a Unix stream server speaking VPP's framing, with VPP's
 * socket-registration bookkeeping (src/vlibmemory/socket_api.c, VPP 26.06):
 *
 * - Each accepted connection gets a registration from a pool whose index 0 is the listening
 *   socket (`socksvr_file_add`), so the first client is index 1. The handle a client puts in
 *   `client_index` is 0x80000000 | index (`sock_api_registration_handle`). Freed indices are
 *   reused most recent first (vppinfra pool).
 * - Messages are cut from the stream at the 16-byte header's length (`vl_socket_read_ready`) and
 *   processed one at a time, strictly in order.
 * - Output goes out in `send` calls of at most 4096 bytes (`vl_socket_write_ready`).
 * - A closed connection frees its registration and runs the "reapers" (event subscriptions die
 *   with the connection).
 */
import { existsSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import { FrameParser } from '../wire/frame.js';

/** VPP writes at most this many bytes per send() on the API socket. */
export const VPP_SEND_CHUNK = 4096;

const SOCKET_HANDLE_BIT = 0x80000000;

export interface Registration {
  /** Pool index (1, 2, ...). */
  readonly index: number;
  /** What goes into `client_index`: 0x80000000 | index. */
  readonly handle: number;
  readonly conn: SimConnection;
  /** From sockclnt_create. */
  name: string;
}

export class SimConnection {
  readonly socket: net.Socket;
  readonly parser = new FrameParser();
  registration: Registration | undefined;
  #out: Buffer[] = [];
  #outBytes = 0;
  /** (offset in the output, u32) pairs written into the output at flush: see pushWith. */
  #patches: number[] = [];
  #closing = false;

  /** Every byte written to the socket so far: what a client has read once it has read them all. */
  bytesWritten = 0;

  constructor(socket: net.Socket) {
    this.socket = socket;
  }

  get closed(): boolean {
    return this.#closing || this.socket.destroyed;
  }

  /** Queues one complete frame (16-byte header included). */
  push(frame: Buffer): void {
    if (this.closed) return;
    this.#out.push(frame);
    this.#outBytes += frame.length;
  }

  /**
   * Queues `frame` as it would be with the big-endian u32 at `at` replaced by `value`, without a
   * copy of its own: the frame (a cached details message, shared by every dump) goes into the one
   * output buffer flush makes anyway, and the u32 (the request's context) is written there.
   */
  pushWith(frame: Buffer, at: number, value: number): void {
    if (this.closed) return;
    this.#patches.push(this.#outBytes + at, value >>> 0);
    this.#out.push(frame);
    this.#outBytes += frame.length;
  }

  get pendingBytes(): number {
    return this.#outBytes;
  }

  /** Writes what is queued, cut into sends of at most 4 KiB like VPP. */
  flush(): void {
    if (this.#outBytes === 0 || this.socket.destroyed) {
      this.#out = [];
      this.#outBytes = 0;
      this.#patches = [];
      return;
    }
    const patches = this.#patches;
    const all =
      this.#out.length === 1 && patches.length === 0
        ? (this.#out[0] as Buffer)
        : Buffer.concat(this.#out, this.#outBytes);
    for (let i = 0; i < patches.length; i += 2) all.writeUInt32BE(patches[i + 1] as number, patches[i]);
    this.#out = [];
    this.#outBytes = 0;
    this.#patches = [];
    this.bytesWritten += all.length;
    for (let off = 0; off < all.length; off += VPP_SEND_CHUNK) {
      this.socket.write(all.subarray(off, Math.min(off + VPP_SEND_CHUNK, all.length)));
    }
  }

  /** Flushes, then closes our side (sockclnt_delete). */
  end(): void {
    if (this.#closing) return;
    this.flush();
    this.#closing = true;
    this.socket.end();
  }

  /** No goodbye: what a crash looks like to the client. */
  destroy(): void {
    this.#closing = true;
    this.#out = [];
    this.#outBytes = 0;
    this.#patches = [];
    this.socket.destroy();
  }
}

export interface ApiServerHooks {
  /** One message, in order. `payload` is only valid during the call. */
  onMessage(conn: SimConnection, payload: Buffer): void;
  /** After a batch of messages: send what the handlers queued (events included). */
  afterBatch(): void;
  /** A registration went away (connection closed): reap its subscriptions. */
  onRegistrationGone(reg: Registration): void;
}

export class ApiServer {
  readonly socketPath: string;
  readonly #hooks: ApiServerHooks;
  #server: net.Server | undefined;
  /** Index 0 is the listener, as in VPP. */
  readonly #regs: (Registration | undefined)[] = [undefined];
  readonly #freeRegs: number[] = [];
  readonly #conns = new Set<SimConnection>();
  /** Queued while stalled: payload copies with their connection, in arrival order. */
  #stalled: { conn: SimConnection; payload: Buffer }[] | undefined;
  /** whenHeld() callers: each resolves once `count` messages are held. */
  #heldWaiters: { count: number; resolve: () => void }[] = [];
  #handled = 0;
  #handledWaiters: { count: number; resolve: () => void }[] = [];

  constructor(socketPath: string, hooks: ApiServerHooks) {
    this.socketPath = socketPath;
    this.#hooks = hooks;
  }

  async listen(): Promise<void> {
    // VPP replaces a stale socket file when it starts.
    if (existsSync(this.socketPath)) unlinkSync(this.socketPath);
    const server = net.createServer((socket) => this.#accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.#server = server;
  }

  /** Stops listening, drops every connection, removes the socket file. */
  async close(): Promise<void> {
    this.dropAll();
    // The file goes at once, in the same turn as the connections: a client that saw its socket
    // close finds no file to reconnect to, as with a VPP that died.
    if (existsSync(this.socketPath)) {
      try {
        unlinkSync(this.socketPath);
      } catch {
        // already gone
      }
    }
    const server = this.#server;
    this.#server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  get listening(): boolean {
    return this.#server !== undefined;
  }

  /** Destroys every connection without a word (a crash, as clients see it). */
  dropAll(): void {
    for (const c of [...this.#conns]) {
      c.destroy();
      this.#gone(c);
    }
    this.#stalled = this.#stalled ? [] : undefined;
  }

  setStalled(on: boolean): void {
    if (on) {
      this.#stalled ??= [];
      return;
    }
    const queued = this.#stalled;
    this.#stalled = undefined;
    if (!queued) return;
    for (const q of queued) {
      if (q.conn.closed) continue;
      this.#hooks.onMessage(q.conn, q.payload);
      this.#handled++;
    }
    this.#hooks.afterBatch();
    this.#notifyHandled();
  }

  get stalled(): boolean {
    return this.#stalled !== undefined;
  }

  /** Messages handled so far, on every connection. */
  get handled(): number {
    return this.#handled;
  }

  /**
   * Resolves once `count` messages have been handled and their answers written: a client that
   * then reads the bytes written (SimConnection.bytesWritten) has everything VPP sent it.
   */
  whenHandled(count: number): Promise<void> {
    if (this.#handled >= count) return Promise.resolve();
    return new Promise((resolve) => this.#handledWaiters.push({ count, resolve }));
  }

  /** Bytes written to clients so far, on connections still open. */
  get bytesWritten(): number {
    let n = 0;
    for (const c of this.#conns) n += c.bytesWritten;
    return n;
  }

  /** Messages received while stalled and not handled yet. */
  get held(): number {
    return this.#stalled?.length ?? 0;
  }

  /** Resolves once `count` messages are held: they arrived, and nothing has answered them. */
  whenHeld(count: number): Promise<void> {
    if (this.held >= count) return Promise.resolve();
    return new Promise((resolve) => this.#heldWaiters.push({ count, resolve }));
  }

  /** The registration a `client_index` names (raw u32), as vl_api_client_index_to_registration. */
  registrationFor(clientIndex: number): Registration | undefined {
    if ((clientIndex & SOCKET_HANDLE_BIT) === 0) return undefined; // shared-memory clients: none here
    const index = clientIndex & ~SOCKET_HANDLE_BIT;
    if (index === 0) return undefined; // the listener's own registration
    return this.#regs[index];
  }

  registrations(): Registration[] {
    return this.#regs.filter((r): r is Registration => r !== undefined);
  }

  /** Frees registration `index` and closes its connection (sockclnt_delete). */
  freeRegistration(index: number): boolean {
    const reg = this.#regs[index];
    if (!reg) return false;
    this.#regs[index] = undefined;
    this.#freeRegs.push(index);
    reg.conn.registration = undefined;
    this.#hooks.onRegistrationGone(reg);
    return true;
  }

  /** Flushes every connection with queued output. */
  flushAll(): void {
    for (const c of this.#conns) c.flush();
  }

  #accept(socket: net.Socket): void {
    const conn = new SimConnection(socket);
    const index = this.#freeRegs.length > 0 ? (this.#freeRegs.pop() as number) : this.#regs.length;
    const reg: Registration = { index, handle: (SOCKET_HANDLE_BIT | index) >>> 0, conn, name: '' };
    this.#regs[index] = reg;
    conn.registration = reg;
    this.#conns.add(conn);
    socket.on('data', (chunk: Buffer) => this.#onData(conn, chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => this.#gone(conn));
    socket.on('end', () => {
      // VPP: read() == 0 is a severe error; the registration is removed and the file closed.
      conn.destroy();
      this.#gone(conn);
    });
  }

  #onData(conn: SimConnection, chunk: Buffer): void {
    if (conn.closed) return;
    try {
      conn.parser.push(chunk, (payload) => {
        if (conn.closed) return;
        if (this.#stalled) {
          this.#stalled.push({ conn, payload: Buffer.from(payload) });
          this.#notifyHeld();
          return;
        }
        this.#hooks.onMessage(conn, payload);
        this.#handled++;
      });
    } catch {
      // A frame VPP could not parse either (length < 2): it keeps waiting for bytes that make
      // sense; we drop the connection rather than buffer forever.
      conn.destroy();
      this.#gone(conn);
      return;
    }
    if (!this.#stalled) {
      this.#hooks.afterBatch();
      this.#notifyHandled();
    }
  }

  #notifyHandled(): void {
    if (this.#handledWaiters.length === 0) return;
    const due = this.#handledWaiters.filter((w) => w.count <= this.#handled);
    this.#handledWaiters = this.#handledWaiters.filter((w) => w.count > this.#handled);
    for (const w of due) w.resolve();
  }

  #notifyHeld(): void {
    if (this.#heldWaiters.length === 0) return;
    const held = this.held;
    const due = this.#heldWaiters.filter((w) => w.count <= held);
    this.#heldWaiters = this.#heldWaiters.filter((w) => w.count > held);
    for (const w of due) w.resolve();
  }

  #gone(conn: SimConnection): void {
    if (!this.#conns.delete(conn)) return;
    conn.parser.reset();
    const reg = conn.registration;
    if (reg && this.#regs[reg.index] === reg) this.freeRegistration(reg.index);
  }
}
