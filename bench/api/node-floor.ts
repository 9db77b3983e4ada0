/**
 * Node's own floor for bench/api: control_ping over a plain net.Socket with no vppnet code — the
 * frames encoded by hand into one reused buffer, replies counted by id, one write per burst and
 * reads into one reused buffer (net's onread). What V8, libuv and the kernel cost a Node process
 * per request before any client runs, measured in the same rounds as vppnet and VPP's C limit:
 * the part of vppnet's distance to the C limit that no change to vppnet can take away.
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Timed } from './limit-rows.js';

const HEADER = 16;
/** sockclnt_create and its reply have fixed ids (memclnt), valid before the message table. */
const SOCKCLNT_CREATE_ID = 15;
const SOCKCLNT_CREATE_REPLY_ID = 16;
const PING = 'control_ping_51077d14';
const PING_REPLY = 'control_ping_reply_f6b0b8ca';
/** control_ping: header, u16 id, u32 client_index, u32 context. */
const PING_FRAME = HEADER + 10;
/** The largest payload accepted: the message table of sockclnt_create_reply is ~72 KB. */
const MAX_PAYLOAD = 1 << 20;

export interface NodeFloor {
  /** `n` control_pings with at most `window` in flight; CPU is this whole process's. */
  measure(n: number, window: number): Promise<Timed>;
  close(): void;
}

/** The message ids of control_ping and its reply on this connection, and our client index. */
interface Session {
  readonly clientIndex: number;
  readonly pingId: number;
  readonly pingReplyId: number;
}

/** Reads sockclnt_create_reply's message table (the layout vppblast reads too). */
export function parseHandshakeReply(payload: Buffer): Session {
  if (payload.length < 20 || payload.readUInt16BE(0) !== SOCKCLNT_CREATE_REPLY_ID)
    throw new Error('node floor: not a sockclnt_create_reply');
  const response = payload.readInt32BE(10);
  if (response !== 0) throw new Error(`node floor: sockclnt_create refused (${response})`);
  const count = payload.readUInt16BE(18);
  if (payload.length < 20 + 66 * count) throw new Error('node floor: message table cut short');
  let pingId = -1;
  let pingReplyId = -1;
  for (let i = 0; i < count; i++) {
    const at = 20 + 66 * i;
    const name = payload.toString('latin1', at + 2, at + 66).replace(/\0.*$/s, '');
    if (name === PING) pingId = payload.readUInt16BE(at);
    else if (name === PING_REPLY) pingReplyId = payload.readUInt16BE(at);
  }
  if (pingId < 0 || pingReplyId < 0) throw new Error(`node floor: VPP offers no ${PING} / ${PING_REPLY}`);
  return { clientIndex: payload.readUInt32BE(14), pingId, pingReplyId };
}

/**
 * Splits a byte stream into frames: `push` calls `onFrame(buf, start, end)` for each whole payload
 * and keeps a cut frame's bytes for the next chunk.
 */
export class FloorFrames {
  #carry = Buffer.alloc(0);
  #carried = 0;

  push(chunk: Buffer, onFrame: (buf: Buffer, start: number, end: number) => void): void {
    let buf = chunk;
    let end = chunk.length;
    if (this.#carried > 0) {
      const need = this.#carried + chunk.length;
      if (this.#carry.length < need) {
        const grown = Buffer.allocUnsafe(Math.max(need, 2 * this.#carry.length));
        this.#carry.copy(grown, 0, 0, this.#carried);
        this.#carry = grown;
      }
      chunk.copy(this.#carry, this.#carried);
      buf = this.#carry;
      end = need;
    }
    let at = 0;
    while (end - at >= HEADER) {
      const length = buf.readUInt32BE(at + 8);
      if (length < 2 || length > MAX_PAYLOAD) throw new Error(`node floor: bad frame length ${length}`);
      if (end - at < HEADER + length) break;
      onFrame(buf, at + HEADER, at + HEADER + length);
      at += HEADER + length;
    }
    const rest = end - at;
    if (rest > 0 && buf !== this.#carry) {
      if (this.#carry.length < rest) this.#carry = Buffer.allocUnsafe(Math.max(rest, 4096));
      buf.copy(this.#carry, 0, at, end);
    } else if (rest > 0) this.#carry.copy(this.#carry, 0, at, end);
    this.#carried = rest;
  }
}

export async function openNodeFloor(socketPath: string): Promise<NodeFloor> {
  const readBuffer = Buffer.allocUnsafe(64 * 1024);
  const frames = new FloorFrames();
  /** What each whole inbound payload goes to: the handshake first, then the measurement. */
  let onFrame: (buf: Buffer, start: number, end: number) => void = () => undefined;
  let onChunkDone: () => void = () => undefined;
  let failed: Error | undefined;
  const socket = net.createConnection({
    path: socketPath,
    onread: {
      buffer: readBuffer,
      callback: (nread: number): boolean => {
        try {
          frames.push(readBuffer.subarray(0, nread), onFrame);
          onChunkDone();
        } catch (err) {
          failed = err as Error;
          socket.destroy(failed);
        }
        return true;
      },
    },
  });
  // An error after connecting is kept for the measurement's rejection ('close' follows it).
  socket.on('error', (err) => (failed ??= err));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const hello = Buffer.alloc(HEADER + 70);
  hello.writeUInt32BE(70, 8);
  hello.writeUInt16BE(SOCKCLNT_CREATE_ID, HEADER);
  hello.writeUInt32BE(1, HEADER + 2);
  hello.write('vppnet-bench-node-floor', HEADER + 6, 'latin1');
  const session = await new Promise<Session>((resolve, reject) => {
    socket.once('close', () => reject(failed ?? new Error('node floor: VPP closed the connection')));
    onFrame = (buf, start, end) => {
      try {
        resolve(parseHandshakeReply(Buffer.from(buf.subarray(start, end))));
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    };
    socket.write(hello);
  });
  const out = Buffer.alloc(PING_FRAME * 4096);
  /** Fails the measurement under way, if any, when the connection goes. */
  let abort: (err: Error) => void = () => undefined;
  socket.on('close', () => abort(failed ?? new Error('node floor: VPP closed the connection')));

  return {
    measure(n: number, window: number): Promise<Timed> {
      const burst = Math.min(window, 4096);
      let sent = 0;
      let done = 0;
      const sendMore = (): void => {
        let k = 0;
        while (sent < n && sent - done < burst) {
          const at = k * PING_FRAME;
          out.writeUInt32BE(10, at + 8);
          out.writeUInt16BE(session.pingId, at + HEADER);
          out.writeUInt32BE(session.clientIndex, at + HEADER + 2);
          out.writeUInt32BE(++sent, at + HEADER + 6);
          k++;
        }
        // A copy: the socket may keep what it could not write yet while `out` is reused.
        if (k > 0) socket.write(Buffer.from(out.subarray(0, k * PING_FRAME)));
      };
      return new Promise<Timed>((resolve, reject) => {
        if (socket.destroyed) return reject(failed ?? new Error('node floor: connection closed'));
        abort = reject;
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        onFrame = (buf, start) => {
          if (buf.readUInt16BE(start) === session.pingReplyId) done++;
        };
        onChunkDone = () => {
          if (done >= n) {
            onChunkDone = () => undefined;
            abort = () => undefined;
            const cpu = process.cpuUsage(cpu0);
            resolve({
              count: n,
              seconds: (performance.now() - t0) / 1000,
              cpuSeconds: (cpu.user + cpu.system) / 1e6,
            });
          } else sendMore();
        };
        sendMore();
      });
    },
    close(): void {
      socket.destroy();
    },
  };
}
