/** FrameRecorder: what bench/reconcile hands vppblast to replay. */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { encodeMessage } from '../../src/vpp/codec/message-codec.js';
import { msg } from '../../src/vpp/messages/index.js';
import type { VppTransport } from '../../src/vpp/transport/transport.js';
import { FRAME_HEADER_LENGTH, writeFrameHeader } from '../../src/vpp/wire/frame.js';
import { FrameRecorder } from './frame-recorder.js';

/** A transport that keeps what is sent and lets the test deliver inbound payloads. */
class FakeTransport extends EventEmitter {
  readonly sent: Buffer[] = [];
  connect = (): Promise<void> => Promise.resolve();
  send = (frame: Buffer): boolean => {
    this.sent.push(frame);
    return true;
  };
  close = (): Promise<void> => Promise.resolve();
  destroy = (): void => undefined;
  deliver(frame: Buffer): void {
    this.emit('frame', frame.subarray(16));
  }
}

/** A frame as the client sends it: the 16-byte header, then `payload`. */
function frameOf(payload: string): Buffer {
  const frame = Buffer.alloc(FRAME_HEADER_LENGTH + payload.length);
  writeFrameHeader(frame, payload.length);
  frame.write(payload, FRAME_HEADER_LENGTH, 'latin1');
  return frame;
}

/** Runs `use` with a new temporary directory, removed afterwards whatever happens. */
async function inTempDir(use: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'frame-recorder-'));
  try {
    await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const handshakeReply = encodeMessage(msg.sockclnt_create_reply, 16, {
  client_index: 0,
  context: 1,
  response: 0,
  index: 7,
  message_table: [
    { index: 16, name: 'sockclnt_create_reply_35166268' },
    { index: 600, name: 'control_ping_51077d14' },
  ],
});

describe("bench/reconcile's frame recorder", () => {
  it('records copies of the frames sent while on, and the table of the handshake it saw', async () => {
    const recorder = new FrameRecorder();
    const fake = new FakeTransport();
    const transport: VppTransport = recorder.wrap(() => fake)({
      path: '/x',
      connectTimeoutMs: 1,
    });
    const seen: Buffer[] = [];
    transport.on('frame', (p) => seen.push(Buffer.from(p)));
    fake.deliver(handshakeReply);
    assert.equal(seen.length, 1, 'the client still gets every inbound frame');

    transport.send(frameOf('before'));
    recorder.start();
    const a = frameOf('frame-a');
    transport.send(a);
    transport.send(frameOf('frame-b'));
    a.fill(0); // the client reusing the frame's memory must not change the recording
    assert.equal(recorder.stop(), 2);
    transport.send(frameOf('after'));
    assert.equal(fake.sent.length, 4, 'every frame still reaches the transport');

    await inTempDir(async (dir) => {
      await recorder.write(path.join(dir, 'rec'));
      assert.deepEqual(
        await readFile(path.join(dir, 'rec.frames')),
        Buffer.concat([frameOf('frame-a'), frameOf('frame-b')]),
      );
      assert.equal(
        await readFile(path.join(dir, 'rec.table'), 'utf8'),
        '16 sockclnt_create_reply_35166268\n600 control_ping_51077d14\n',
      );
    });
  });

  it('leaves out the dumps vppblast would wait a reply for (not named X_dump), and says so', async () => {
    const recorder = new FrameRecorder();
    const fake = new FakeTransport();
    const transport = recorder.wrap(() => fake)({ path: '/x', connectTimeoutMs: 1 });
    transport.on('frame', () => undefined);
    fake.deliver(
      encodeMessage(msg.sockclnt_create_reply, 16, {
        client_index: 0,
        context: 1,
        response: 0,
        index: 7,
        message_table: [
          { index: 16, name: 'sockclnt_create_reply_35166268' },
          { index: 600, name: 'control_ping_51077d14' },
          { index: 601, name: 'policer_dump_v2_7ff7912e' },
          { index: 602, name: 'sr_steering_pol_dump_51077d14' },
        ],
      }),
    );
    const frame = (id: number, tag: number): Buffer => {
      const f = Buffer.alloc(26, tag);
      writeFrameHeader(f, 10);
      f.writeUInt16BE(id, 16);
      return f;
    };
    recorder.start();
    for (const [id, tag] of [
      [602, 1],
      [600, 2],
      [601, 3],
      [600, 4],
    ] as const)
      transport.send(frame(id, tag));
    assert.equal(recorder.stop(), 4);
    await inTempDir(async (dir) => {
      const written = await recorder.write(path.join(dir, 'rec'));
      assert.equal(written.frames, 3);
      assert.deepEqual([...written.leftOut], [['policer_dump_v2', 1]]);
      const frames = await readFile(path.join(dir, 'rec.frames'));
      assert.deepEqual(
        [0, 1, 2].map((k) => [frames.readUInt16BE(26 * k + 16), frames[26 * k + 20]]),
        [
          [602, 1],
          [600, 2],
          [600, 4],
        ],
      );
    });
  });

  it('passes sendFrom on and records what it sends, past the first buffer and after reuse', async () => {
    const recorder = new FrameRecorder();
    const fake = new FakeTransport();
    const sentFrom: string[] = [];
    const withSendFrom = Object.assign(fake, {
      sendFrom: (buf: Buffer, start: number, end: number): boolean => {
        sentFrom.push(buf.toString('latin1', start, end));
        return true;
      },
    });
    const transport = recorder.wrap(() => withSendFrom)({ path: '/x', connectTimeoutMs: 1 });
    assert.ok(transport.sendFrom !== undefined, 'the client keeps its copy-free path');
    transport.on('frame', () => undefined);
    fake.deliver(handshakeReply);
    recorder.start();
    // One scratch buffer reused for every frame, as the client's request mux does; 3 MiB in all.
    const scratch = Buffer.alloc(1024);
    const frames = 3 * 1024;
    for (let i = 0; i < frames; i++) {
      scratch.fill(i & 255);
      writeFrameHeader(scratch, 1000 - FRAME_HEADER_LENGTH, 8);
      transport.sendFrom?.(scratch, 8, 8 + 1000);
    }
    transport.send(frameOf('last'));
    assert.equal(recorder.stop(), frames + 1);
    assert.equal(sentFrom.length, frames, 'every frame still reaches the transport');
    await inTempDir(async (dir) => {
      await recorder.write(path.join(dir, 'rec'));
      const bytes = await readFile(path.join(dir, 'rec.frames'));
      assert.equal(bytes.length, frames * 1000 + FRAME_HEADER_LENGTH + 4);
      for (const i of [0, 1, 1047, 1048, frames - 1]) {
        assert.equal(bytes.readUInt32BE(i * 1000 + 8), 1000 - FRAME_HEADER_LENGTH, `frame ${i}'s length`);
        assert.ok(
          bytes.subarray(i * 1000 + FRAME_HEADER_LENGTH, (i + 1) * 1000).every((b) => b === (i & 255)),
          `frame ${i}`,
        );
      }
      assert.deepEqual(bytes.subarray(frames * 1000), frameOf('last'));
    });
  });

  it('records a frame larger than its buffer whole, between smaller ones', async () => {
    const recorder = new FrameRecorder();
    const fake = new FakeTransport();
    const transport = recorder.wrap(() => fake)({ path: '/x', connectTimeoutMs: 1 });
    transport.on('frame', () => undefined);
    fake.deliver(handshakeReply);
    recorder.start();
    const large = frameOf('x'.repeat(1.5 * 2 ** 20));
    for (const f of [frameOf('small-1'), large, frameOf('small-2')]) transport.send(f);
    recorder.recordPayload(large, FRAME_HEADER_LENGTH, large.length);
    assert.equal(recorder.stop(), 4);
    await inTempDir(async (dir) => {
      assert.equal((await recorder.write(path.join(dir, 'rec'))).frames, 4);
      assert.deepEqual(
        await readFile(path.join(dir, 'rec.frames')),
        Buffer.concat([frameOf('small-1'), large, frameOf('small-2'), large]),
      );
    });
  });

  it('refuses to write without a message table', async () => {
    const recorder = new FrameRecorder();
    await assert.rejects(recorder.write('/nonexistent/rec'), /no message table seen/);
  });
});
