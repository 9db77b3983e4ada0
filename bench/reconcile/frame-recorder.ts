/**
 * Records the request frames a VppClient sends, for vppblast to replay raw (VPP's own time on the
 * same work): a transport wrapper that copies each outgoing frame while recording is on, and keeps
 * the connection's message table from the sockclnt_create_reply it passes through. bench/fleet's
 * recording proxy (another process's client) feeds it through recordPayload and seeFromVpp.
 * Writes vppblast's replay files: PREFIX.frames (the frames as sent, 16-byte headers included)
 * and PREFIX.table ("id name_crc" lines, so that vppblast translates ids into its own connection's).
 */
import { mkdtempSync, openSync, rmdirSync, unlinkSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { decodeMessage } from '../../src/vpp/codec/message-codec.js';
import type { MessageDef } from '../../src/vpp/codec/schema.js';
import { msg } from '../../src/vpp/messages/index.js';
import type { TransportEvents, TransportFactory, VppTransport } from '../../src/vpp/transport/transport.js';
import { FrameFile } from './frame-file.js';

/** vppnet's message definitions by name: whether a request is answered with a reply. */
const messagesByName = new Map<string, MessageDef>(msg.allMessages.map((m) => [m.name, m]));

/** sockclnt_create_reply's id: fixed by VPP, as it comes before any table exists. */
const SOCKCLNT_CREATE_REPLY_ID = 16;

/**
 * The connection's own messages: vppblast makes its own connection (a replayed sockclnt_delete
 * would end it), and answers no keepalive.
 */
const CONNECTION_MESSAGES = new Set(['sockclnt_create', 'sockclnt_delete', 'memclnt_keepalive_reply']);

export class FrameRecorder {
  #recording = false;
  /**
   * The recorded frames, in a file: a from-empty pass sends 112k frames (~9 MB), and held in the
   * measured process (a buffer that doubled as it filled, plus the halves it left for the
   * collector) they were the benchmark's own memory in the peak RSS it reports as vppnet's. The
   * file is unlinked as soon as it is open: its descriptor is all that keeps it, so nothing is
   * left behind however the benchmark ends.
   */
  #spill: FrameFile | undefined;
  #frames = 0;
  #table: ReadonlyArray<{ readonly index: number; readonly name: string }> = [];

  /** The client's transport factory, wrapped so that this recorder sees its traffic. */
  wrap(inner: TransportFactory): TransportFactory {
    return (target) => this.#wrapTransport(inner(target));
  }

  /** Drops what was recorded before and records from now on. */
  start(): void {
    if (this.#spill === undefined) {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'vppnet-frames-'));
      const file = path.join(dir, 'frames');
      this.#spill = new FrameFile(openSync(file, 'w+', 0o600));
      unlinkSync(file);
      rmdirSync(dir);
    } else this.#spill.truncate();
    this.#frames = 0;
    this.#recording = true;
  }

  /** Stops recording; returns how many frames were recorded. */
  stop(): number {
    this.#recording = false;
    return this.#frames;
  }

  get frameCount(): number {
    return this.#frames;
  }

  /** Copies `buf[start, end)` (one whole frame) into the recording. */
  #record(buf: Buffer, start: number, end: number): void {
    this.#spill?.appendFrame(buf, start, end);
    this.#frames++;
  }

  /**
   * While recording, records the frame whose payload is `buf[start, end)`, its header rebuilt
   * (a frame parser hands out payloads; the header is a function of the length).
   */
  recordPayload(buf: Buffer, start: number, end: number): void {
    if (!this.#recording) return;
    this.#spill?.appendPayload(buf, start, end);
    this.#frames++;
  }

  /** A payload VPP sent the client: the sockclnt_create_reply's message table is kept. */
  seeFromVpp(buf: Buffer, start: number, end: number): void {
    if (end - start >= 2 && buf.readUInt16BE(start) === SOCKCLNT_CREATE_REPLY_ID)
      this.#table = decodeMessage(msg.sockclnt_create_reply, buf.subarray(start, end)).message_table.map(
        (e) => ({ index: e.index, name: e.name }),
      );
  }

  /**
   * Writes PREFIX.frames and PREFIX.table; returns how many frames it wrote, and by message name
   * those it left out: requests vppblast cannot replay. vppblast waits for a reply to every
   * request not named `X_dump`, so a dump named otherwise (`policer_dump_v2`, answered with
   * details and no reply) would keep it waiting for ever. Such dumps are small (the services' few
   * policers): the replay is the rest. Left out too: the connection's own messages
   * (CONNECTION_MESSAGES) and what is no request (an answer to VPP's keepalive gets no reply).
   */
  async write(prefix: string): Promise<{ frames: number; leftOut: ReadonlyMap<string, number> }> {
    if (this.#table.length === 0)
      throw new Error('FrameRecorder: no message table seen (the handshake did not pass through it)');
    const unreplayable = new Map<number, string>();
    for (const { index, name } of this.#table) {
      const bare = name.slice(0, name.lastIndexOf('_'));
      const def = messagesByName.get(bare);
      const dumpWithoutReply =
        def?.stream !== undefined && def.reply === undefined && !bare.endsWith('_dump');
      const noRequest = def !== undefined && def.stream === undefined && def.reply === undefined;
      if (dumpWithoutReply || noRequest || CONNECTION_MESSAGES.has(bare)) unreplayable.set(index, bare);
    }
    const leftOut = new Map<string, number>();
    let frames = 0;
    const out = new FrameFile(openSync(`${prefix}.frames`, 'w', 0o644));
    try {
      this.#spill?.readPayloads((buf, start, end) => {
        const name = end - start >= 2 ? unreplayable.get(buf.readUInt16BE(start)) : undefined;
        if (name !== undefined) leftOut.set(name, (leftOut.get(name) ?? 0) + 1);
        else {
          out.appendPayload(buf, start, end);
          frames++;
        }
      });
    } finally {
      out.close();
    }
    await writeFile(`${prefix}.table`, this.#table.map((e) => `${e.index} ${e.name}\n`).join(''));
    return { frames, leftOut };
  }

  #wrapTransport(t: VppTransport): VppTransport {
    const innerSendFrom = t.sendFrom?.bind(t);
    const onFrame = (payload: Buffer): void => this.seeFromVpp(payload, 0, payload.length);
    const wrapped: VppTransport = {
      connect: () => t.connect(),
      send: (frame) => {
        // A copy: the client may reuse the frame's memory once it is written.
        if (this.#recording) this.#record(frame, 0, frame.length);
        return t.send(frame);
      },
      // Passed on when the transport has it, as the client then encodes into a scratch buffer
      // instead of a new Buffer per request: the benchmark measures the agent's own path.
      ...(innerSendFrom && {
        sendFrom: (buf, start, end) => {
          if (this.#recording) this.#record(buf, start, end);
          return innerSendFrom(buf, start, end);
        },
      }),
      close: () => t.close(),
      destroy: (error) => t.destroy(error),
      // In place, as the client takes frames from the bare transport: recording costs it nothing.
      ...(t.onFrameAt && {
        onFrameAt: (sink) => {
          t.onFrameAt?.((buf, start, end) => {
            this.seeFromVpp(buf, start, end);
            sink(buf, start, end);
          });
          return wrapped;
        },
      }),
      on<E extends keyof TransportEvents>(event: E, listener: TransportEvents[E]) {
        if (event === 'frame') {
          const inner = listener as TransportEvents['frame'];
          t.on('frame', (payload) => {
            onFrame(payload);
            inner(payload);
          });
        } else t.on(event, listener);
        return wrapped;
      },
    };
    return wrapped;
  }
}
