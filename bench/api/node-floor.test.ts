/** bench/api's Node floor: its framing and its reading of VPP's handshake reply. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FloorFrames, parseHandshakeReply } from './node-floor.js';

function frame(payload: Buffer): Buffer {
  const header = Buffer.alloc(16);
  header.writeUInt32BE(payload.length, 8);
  return Buffer.concat([header, payload]);
}

function collect(frames: FloorFrames, chunks: readonly Buffer[]): string[] {
  const got: string[] = [];
  for (const c of chunks) frames.push(c, (buf, start, end) => got.push(buf.toString('latin1', start, end)));
  return got;
}

/** A sockclnt_create_reply with the given table entries (id, name) and response. */
function handshakeReply(entries: readonly (readonly [number, string])[], response = 0): Buffer {
  const p = Buffer.alloc(20 + 66 * entries.length);
  p.writeUInt16BE(16, 0);
  p.writeInt32BE(response, 10);
  p.writeUInt32BE(7, 14);
  p.writeUInt16BE(entries.length, 18);
  entries.forEach(([id, name], i) => {
    p.writeUInt16BE(id, 20 + 66 * i);
    p.write(name, 22 + 66 * i, 'latin1');
  });
  return p;
}

describe("bench/api's Node floor", () => {
  it('splits a stream into payloads however the reads cut it', () => {
    const stream = Buffer.concat(['ab', 'cdef', 'g'.repeat(5000)].map((s) => frame(Buffer.from(s))));
    const whole = collect(new FloorFrames(), [stream]);
    assert.deepEqual(whole, ['ab', 'cdef', 'g'.repeat(5000)]);
    for (const cut of [1, 7, 16, 17, 18, 25, 40, 1000]) {
      const chunks: Buffer[] = [];
      for (let at = 0; at < stream.length; at += cut) chunks.push(stream.subarray(at, at + cut));
      assert.deepEqual(collect(new FloorFrames(), chunks), whole, `reads of ${cut} bytes`);
    }
  });

  it('refuses a frame length no VPP message has', () => {
    const bad = Buffer.alloc(16);
    bad.writeUInt32BE(0x7fffffff, 8);
    assert.throws(() => collect(new FloorFrames(), [bad]), /bad frame length/);
  });

  it("finds control_ping's ids and the client index in the handshake reply", () => {
    const reply = handshakeReply([
      [100, 'show_version_51077d14'],
      [101, 'control_ping_51077d14'],
      [102, 'control_ping_reply_f6b0b8ca'],
    ]);
    assert.deepEqual(parseHandshakeReply(reply), { clientIndex: 7, pingId: 101, pingReplyId: 102 });
  });

  it('refuses a refused handshake, a cut table and a VPP without control_ping', () => {
    assert.throws(() => parseHandshakeReply(handshakeReply([], -1)), /refused \(-1\)/);
    const cut = handshakeReply([[101, 'control_ping_51077d14']]).subarray(0, 40);
    assert.throws(() => parseHandshakeReply(cut), /cut short/);
    assert.throws(
      () => parseHandshakeReply(handshakeReply([[101, 'control_ping_51077d14']])),
      /offers no control_ping/,
    );
    assert.throws(() => parseHandshakeReply(Buffer.alloc(30)), /not a sockclnt_create_reply/);
  });
});
