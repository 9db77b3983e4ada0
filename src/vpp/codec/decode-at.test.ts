import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  loadTranscripts,
  payloadOf,
  SKIP_NO_SHARED,
  transcriptsAvailable,
} from '../../../test/support/transcripts.js';
import { VppError } from '../errors.js';
import { definitionByNameCrc, msg } from '../messages/index.js';
import { decodeMessage, decodeMessageAt, encodeMessage } from './message-codec.js';
import { FRAME_HEADER_LENGTH } from '../wire/frame.js';

/** `payload` placed inside a larger buffer with other bytes around it, as in a socket chunk. */
function embedded(payload: Buffer, before: number, after: number): Buffer {
  const buf = Buffer.alloc(before + payload.length + after, 0xa5);
  payload.copy(buf, before);
  return buf;
}

describe('decodeMessageAt: a payload decoded in place inside a chunk', () => {
  it(
    'gives what decodeMessage gives of the payload alone, for every frame VPP 26.06 sent',
    { skip: !transcriptsAvailable() && SKIP_NO_SHARED },
    () => {
      let n = 0;
      for (const set of ['26.06', '26.06-design'] as const)
        for (const t of loadTranscripts(set))
          for (const frame of t.frames) {
            const def = definitionByNameCrc(frame.name_crc);
            assert.ok(def, `no definition for ${frame.name_crc}`);
            const payload = payloadOf(frame);
            // Bytes after the payload (the next frame in the chunk) must not be read.
            const buf = embedded(payload, 37, 64);
            assert.deepEqual(
              decodeMessageAt(def, buf, 37, 37 + payload.length),
              decodeMessage(def, payload),
              frame.name_crc,
            );
            n++;
          }
      assert.ok(n > 100, `only ${n} frames checked`);
    },
  );

  it('reads a variable-length message to its own end, not the chunk’s', () => {
    const payload = encodeMessage(
      msg.show_version_reply,
      7,
      { retval: 0, program: 'vpe', version: '26.06', build_date: 'today', build_directory: '/x' },
      { context: 9 },
    ).subarray(FRAME_HEADER_LENGTH);
    const buf = embedded(payload, 16, 16);
    const at = decodeMessageAt(msg.show_version_reply, buf, 16, 16 + payload.length);
    assert.equal(at.context, 9);
    assert.equal(at.version, '26.06');
    assert.deepEqual(at, decodeMessage(msg.show_version_reply, payload));
  });

  it('fails a short payload with the error decodeMessage gives, offsets relative to the payload', () => {
    const payload = encodeMessage(msg.control_ping_reply, 7, { retval: 0, vpe_pid: 42 }, { context: 3 })
      .subarray(FRAME_HEADER_LENGTH)
      .subarray(0, 8);
    const buf = embedded(payload, 100, 100);
    let alone: unknown;
    try {
      decodeMessage(msg.control_ping_reply, payload);
    } catch (err) {
      alone = err;
    }
    assert.ok(alone instanceof VppError && alone.code === 'VPPNET_ERR_DECODE');
    assert.throws(
      () => decodeMessageAt(msg.control_ping_reply, buf, 100, 108),
      (err: unknown) => err instanceof VppError && err.message === alone.message,
    );
  });
});
