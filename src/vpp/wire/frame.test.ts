import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { VppError } from '../errors.js';
import { DEFAULT_MAX_PAYLOAD_LENGTH, FRAME_HEADER_LENGTH, FrameParser, writeFrameHeader } from './frame.js';
import { frameBytes, headerBytes, payloadBytes } from './testing/frame-bytes.js';
import { seededRandom } from '../../util/testing/seeded-random.js';

// ---------------------------------------------------------------------------------------------
// Test helpers. Expected bytes come from the independent builder in ./testing/frame-bytes.js.

/**
 * Pushes `chunks` in order and returns copies of the payloads: the parser's views are valid only
 * during the callback, so keeping them would test nothing.
 */
function parseChunks(chunks: readonly Buffer[], parser = new FrameParser()): Buffer[] {
  const payloads: Buffer[] = [];
  for (const chunk of chunks) {
    parser.push(chunk, (payload) => payloads.push(Buffer.from(payload)));
  }
  assert.equal(parser.bufferedBytes, 0, 'a whole stream leaves nothing buffered');
  return payloads;
}

/** Cuts `stream` into chunks of random lengths from 1 to `maxChunk`. */
function randomChunks(stream: Buffer, random: () => number, maxChunk: number): Buffer[] {
  const chunks: Buffer[] = [];
  let offset = 0;
  while (offset < stream.length) {
    const length = 1 + Math.floor(random() * maxChunk);
    chunks.push(stream.subarray(offset, offset + length));
    offset += length;
  }
  return chunks;
}

function isVppError(code: string): (error: unknown) => boolean {
  return (error) => error instanceof VppError && error.code === code;
}

// Several frames of different sizes, including the smallest legal payload (a bare message id).
const SAMPLE_PAYLOADS: readonly Buffer[] = [
  payloadBytes(23, 10), // control_ping request: id, client_index, context
  payloadBytes(24, 2),
  payloadBytes(0x1234, 37),
  payloadBytes(16, 300),
  payloadBytes(0xfffe, 17), // exactly one header plus one byte
];
const SAMPLE_STREAM = Buffer.concat(SAMPLE_PAYLOADS.map(frameBytes));

// ---------------------------------------------------------------------------------------------

void describe('writeFrameHeader', () => {
  void it('writes 8 zero bytes, the big-endian length and 4 zero bytes', () => {
    for (const length of [0, 2, 10, 255, 256, 0x01020304, 0xffffffff]) {
      const buf = Buffer.alloc(FRAME_HEADER_LENGTH + 4, 0xaa); // stale bytes must be overwritten
      writeFrameHeader(buf, length);
      assert.deepEqual(buf.subarray(0, FRAME_HEADER_LENGTH), headerBytes(length), `length ${length}`);
      assert.deepEqual(
        buf.subarray(FRAME_HEADER_LENGTH),
        Buffer.alloc(4, 0xaa),
        'bytes after the header untouched',
      );
    }
  });

  void it('rejects a buffer shorter than a header and lengths that are not a u32', () => {
    assert.throws(() => writeFrameHeader(Buffer.alloc(FRAME_HEADER_LENGTH - 1), 2), RangeError);
    for (const length of [-1, 1.5, 0x1_0000_0000, Number.NaN]) {
      assert.throws(
        () => writeFrameHeader(Buffer.alloc(FRAME_HEADER_LENGTH), length),
        RangeError,
        `${length}`,
      );
    }
  });

  void it('produces frames the parser reads back', () => {
    const payload = payloadBytes(42, 50);
    const frame = Buffer.alloc(FRAME_HEADER_LENGTH + payload.length);
    writeFrameHeader(frame, payload.length);
    payload.copy(frame, FRAME_HEADER_LENGTH);
    assert.deepEqual(parseChunks([frame]), [payload]);
  });
});

void describe('FrameParser', () => {
  void it('exports the header length and a maximum that fits VPP’s large replies', () => {
    assert.equal(FRAME_HEADER_LENGTH, 16);
    assert.ok(DEFAULT_MAX_PAYLOAD_LENGTH >= 16 * 1024 * 1024);
  });

  void it('hands out whole frames as views of the chunk itself when nothing is buffered', () => {
    const chunk = Buffer.from(SAMPLE_STREAM); // own ArrayBuffer, so the identity check is meaningful
    const parser = new FrameParser();
    let offset = 0;
    let count = 0;
    parser.push(chunk, (payload) => {
      const expected = SAMPLE_PAYLOADS[count];
      assert.ok(expected);
      assert.equal(payload.buffer, chunk.buffer, 'payload shares the chunk’s memory');
      assert.equal(payload.byteOffset, chunk.byteOffset + offset + FRAME_HEADER_LENGTH);
      assert.deepEqual(payload, expected);
      offset += FRAME_HEADER_LENGTH + payload.length;
      count++;
    });
    assert.equal(count, SAMPLE_PAYLOADS.length);
    assert.equal(parser.bufferedBytes, 0);
  });

  void it('parses coalesced frames in one chunk', () => {
    assert.deepEqual(parseChunks([SAMPLE_STREAM]), SAMPLE_PAYLOADS);
  });

  void it('parses a stream split at every byte position', () => {
    for (let split = 0; split <= SAMPLE_STREAM.length; split++) {
      const chunks = [SAMPLE_STREAM.subarray(0, split), SAMPLE_STREAM.subarray(split)];
      assert.deepEqual(parseChunks(chunks), SAMPLE_PAYLOADS, `split at ${split}`);
    }
  });

  void it('parses a stream split at every pair of byte positions', () => {
    // Three chunks, so a frame can start in one chunk, span a whole second one and end in a third,
    // and the parser goes through buffered → buffered transitions as well as chunk → buffered.
    const stream = Buffer.concat(
      [SAMPLE_PAYLOADS[0], SAMPLE_PAYLOADS[1], SAMPLE_PAYLOADS[2]].map((p) => frameBytes(p!)),
    );
    const expected = SAMPLE_PAYLOADS.slice(0, 3);
    for (let first = 0; first <= stream.length; first++) {
      for (let second = first; second <= stream.length; second++) {
        const chunks = [stream.subarray(0, first), stream.subarray(first, second), stream.subarray(second)];
        assert.deepEqual(parseChunks(chunks), expected, `splits at ${first} and ${second}`);
      }
    }
  });

  void it('parses a stream cut at every frame boundary and at every pair of frame boundaries', () => {
    const boundaries = [0];
    for (const payload of SAMPLE_PAYLOADS) {
      boundaries.push(boundaries.at(-1)! + FRAME_HEADER_LENGTH + payload.length);
    }
    // One frame per chunk.
    const perFrame = boundaries.slice(1).map((end, i) => SAMPLE_STREAM.subarray(boundaries[i], end));
    assert.deepEqual(parseChunks(perFrame), SAMPLE_PAYLOADS);
    // Every run of consecutive frames i..j-1 as one chunk, with the rest before and after.
    for (let i = 0; i < boundaries.length; i++) {
      for (let j = i; j < boundaries.length; j++) {
        const chunks = [
          SAMPLE_STREAM.subarray(0, boundaries[i]),
          SAMPLE_STREAM.subarray(boundaries[i], boundaries[j]),
          SAMPLE_STREAM.subarray(boundaries[j]),
        ];
        assert.deepEqual(parseChunks(chunks), SAMPLE_PAYLOADS, `frames ${i}..${j}`);
      }
    }
  });

  void it('parses a stream fed one byte at a time', () => {
    const parser = new FrameParser();
    const payloads: Buffer[] = [];
    for (let i = 0; i < SAMPLE_STREAM.length; i++) {
      parser.push(SAMPLE_STREAM.subarray(i, i + 1), (payload) => payloads.push(Buffer.from(payload)));
    }
    assert.deepEqual(payloads, SAMPLE_PAYLOADS);
    assert.equal(parser.bufferedBytes, 0);
  });

  void it('reports buffered bytes of an incomplete frame', () => {
    const parser = new FrameParser();
    const frame = frameBytes(payloadBytes(7, 40));
    const ignore = (): void => {};
    parser.push(frame.subarray(0, 5), ignore);
    assert.equal(parser.bufferedBytes, 5);
    parser.push(frame.subarray(5, 30), ignore);
    assert.equal(parser.bufferedBytes, 30);
    parser.push(frame.subarray(30), ignore);
    assert.equal(parser.bufferedBytes, 0);
  });

  void it('ignores empty chunks', () => {
    const parser = new FrameParser();
    const frame = frameBytes(payloadBytes(7, 40));
    const payloads: Buffer[] = [];
    const collect = (payload: Buffer): void => void payloads.push(Buffer.from(payload));
    parser.push(Buffer.alloc(0), collect);
    parser.push(frame.subarray(0, 20), collect);
    parser.push(Buffer.alloc(0), collect);
    parser.push(frame.subarray(20), collect);
    assert.deepEqual(payloads, [payloadBytes(7, 40)]);
  });

  void it('reassembles a frame larger than 64 KiB from many chunks, among small frames', () => {
    // Like sockclnt_create_reply's message table (~72 KB), sent by VPP 4 KiB at a time.
    const large = payloadBytes(16, 300 * 1024 + 3);
    const payloads = [payloadBytes(1, 10), large, payloadBytes(2, 12), payloadBytes(3, 70 * 1024)];
    const stream = Buffer.concat(payloads.map(frameBytes));
    for (const chunkSize of [4096, 1000, 65536, 7]) {
      const chunks: Buffer[] = [];
      for (let offset = 0; offset < stream.length; offset += chunkSize) {
        chunks.push(stream.subarray(offset, offset + chunkSize));
      }
      assert.deepEqual(parseChunks(chunks), payloads, `chunk size ${chunkSize}`);
    }
  });

  void it('reassembles frames whose sizes straddle the internal buffer’s growth steps', () => {
    // The parser starts its buffer at a few KiB and doubles it: frames one byte either side of a
    // power of two, after a partial frame already buffered, catch off-by-one capacity errors.
    for (const frameLength of [4095, 4096, 4097, 8191, 8192, 8193, 16383, 16384, 16385, 32769, 65537]) {
      const payload = payloadBytes(3, frameLength - FRAME_HEADER_LENGTH);
      const stream = Buffer.concat([frameBytes(payload), frameBytes(payload)]);
      for (const split of [1, FRAME_HEADER_LENGTH, frameLength - 1, frameLength + 1, frameLength + 20]) {
        for (const chunkSize of [1000, 4096, frameLength - 1, frameLength]) {
          const chunks = [stream.subarray(0, split)];
          for (let offset = split; offset < stream.length; offset += chunkSize) {
            chunks.push(stream.subarray(offset, offset + chunkSize));
          }
          assert.deepEqual(
            parseChunks(chunks),
            [payload, payload],
            `frame ${frameLength}, split ${split}, chunk ${chunkSize}`,
          );
        }
      }
    }
  });

  void it('keeps no reference to a caller’s chunk: reusing the chunk does not corrupt a partial frame', () => {
    const payload = payloadBytes(9, 100);
    const frame = frameBytes(payload);
    const parser = new FrameParser();
    const payloads: Buffer[] = [];
    const scratch = Buffer.alloc(frame.length);
    // A caller reading into one reusable buffer: fill it, push, overwrite it for the next read.
    frame.copy(scratch, 0, 0, 60);
    parser.push(scratch.subarray(0, 60), (p) => payloads.push(Buffer.from(p)));
    scratch.fill(0xee);
    frame.copy(scratch, 0, 60);
    parser.push(scratch.subarray(0, frame.length - 60), (p) => payloads.push(Buffer.from(p)));
    assert.deepEqual(payloads, [payload]);
  });

  void it('never writes into a caller’s chunk', () => {
    const stream = Buffer.concat([SAMPLE_STREAM, SAMPLE_STREAM]);
    const pristine = Buffer.from(stream);
    const random = seededRandom(7);
    for (let round = 0; round < 50; round++) {
      parseChunks(randomChunks(stream, random, 64));
    }
    assert.deepEqual(stream, pristine);
  });

  void it('accepts a payload of exactly the maximum length', () => {
    const payload = payloadBytes(5, 1000);
    assert.deepEqual(parseChunks([frameBytes(payload)], new FrameParser({ maxPayloadLength: 1000 })), [
      payload,
    ]);
  });

  void it('throws VPPNET_ERR_FRAME_TOO_LARGE as soon as a header announces more than the maximum', () => {
    const parser = new FrameParser({ maxPayloadLength: 1000 });
    const payloads: Buffer[] = [];
    const collect = (payload: Buffer): void => void payloads.push(Buffer.from(payload));
    const header = headerBytes(1001);
    // The good frame before it comes out; an incomplete header is not judged yet.
    parser.push(Buffer.concat([frameBytes(payloadBytes(5, 20)), header.subarray(0, 10)]), collect);
    assert.deepEqual(payloads, [payloadBytes(5, 20)]);
    // The error comes with the header alone, before any payload byte arrives.
    assert.throws(() => parser.push(header.subarray(10), collect), isVppError('VPPNET_ERR_FRAME_TOO_LARGE'));
    // The stream cannot be resynchronised: it keeps failing until reset.
    assert.throws(() => parser.push(Buffer.alloc(1), collect), isVppError('VPPNET_ERR_FRAME_TOO_LARGE'));
    parser.reset();
    assert.equal(parser.bufferedBytes, 0);
    parser.push(frameBytes(payloadBytes(6, 30)), collect);
    assert.deepEqual(payloads, [payloadBytes(5, 20), payloadBytes(6, 30)]);
  });

  void it('throws VPPNET_ERR_FRAME_TOO_LARGE for a header just above the default maximum and for 0xffffffff', () => {
    for (const length of [DEFAULT_MAX_PAYLOAD_LENGTH + 1, 0xffffffff]) {
      assert.throws(
        () => new FrameParser().push(headerBytes(length), () => assert.fail('no frame expected')),
        isVppError('VPPNET_ERR_FRAME_TOO_LARGE'),
        `length ${length}`,
      );
    }
  });

  void it('throws VPPNET_ERR_DECODE for a payload too short to hold a message id', () => {
    for (const length of [0, 1]) {
      const stream = Buffer.concat([headerBytes(length), Buffer.alloc(length)]);
      assert.throws(
        () => new FrameParser().push(stream, () => assert.fail('no frame expected')),
        isVppError('VPPNET_ERR_DECODE'),
        `length ${length}`,
      );
    }
  });

  void it('rejects a maximum that is not an integer from 2 to 0xffffffff', () => {
    for (const maxPayloadLength of [0, 1, 2.5, -1, 0x1_0000_0000, Number.NaN]) {
      assert.throws(() => new FrameParser({ maxPayloadLength }), RangeError, `${maxPayloadLength}`);
    }
    assert.doesNotThrow(() => new FrameParser({ maxPayloadLength: 2 }));
  });

  void it('reset() drops a partial frame', () => {
    const parser = new FrameParser();
    const payloads: Buffer[] = [];
    const collect = (payload: Buffer): void => void payloads.push(Buffer.from(payload));
    parser.push(frameBytes(payloadBytes(1, 50)).subarray(0, 30), collect);
    assert.equal(parser.bufferedBytes, 30);
    parser.reset();
    assert.equal(parser.bufferedBytes, 0);
    parser.push(SAMPLE_STREAM, collect);
    assert.deepEqual(payloads, SAMPLE_PAYLOADS);
  });

  void it('stops delivering when the callback resets the parser', () => {
    const parser = new FrameParser();
    for (const chunks of [[SAMPLE_STREAM], [SAMPLE_STREAM.subarray(0, 3), SAMPLE_STREAM.subarray(3)]]) {
      let count = 0;
      for (const chunk of chunks) {
        parser.push(chunk, () => {
          count++;
          if (count === 2) {
            parser.reset();
          }
        });
      }
      assert.equal(count, 2);
      assert.equal(parser.bufferedBytes, 0);
      parser.reset();
    }
  });

  void it('keeps the frames after a throwing callback for the next push, in order', () => {
    for (const chunks of [[SAMPLE_STREAM], [SAMPLE_STREAM.subarray(0, 20), SAMPLE_STREAM.subarray(20)]]) {
      const parser = new FrameParser();
      const payloads: Buffer[] = [];
      let thrown = false;
      const collectButThrowOnce = (payload: Buffer): void => {
        payloads.push(Buffer.from(payload));
        if (payloads.length === 2 && !thrown) {
          thrown = true;
          throw new Error('listener failed');
        }
      };
      assert.throws(() => {
        for (const chunk of chunks) {
          parser.push(chunk, collectButThrowOnce);
        }
      }, /listener failed/);
      assert.ok(parser.bufferedBytes > 0);
      parser.push(Buffer.alloc(0), collectButThrowOnce); // an empty chunk parses nothing
      parser.push(frameBytes(payloadBytes(99, 4)), collectButThrowOnce);
      assert.deepEqual(payloads, [...SAMPLE_PAYLOADS, payloadBytes(99, 4)]);
      assert.equal(parser.bufferedBytes, 0);
    }
  });

  void it('refuses a push from inside its own callback', () => {
    const parser = new FrameParser();
    assert.throws(
      () => parser.push(SAMPLE_STREAM, () => parser.push(SAMPLE_STREAM, () => {})),
      /inside its own frame callback/,
    );
  });

  void it('parses random chunkings of a stream, reproducibly from a seed', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const random = seededRandom(seed);
      const maxChunk = [3, 17, 64, 512][seed % 4]!;
      const chunks = randomChunks(SAMPLE_STREAM, random, maxChunk);
      assert.deepEqual(parseChunks(chunks), SAMPLE_PAYLOADS, `seed ${seed}`);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Real frames recorded from VPP 26.06: the best oracle there is.

interface TranscriptFrame {
  readonly dir: string;
  readonly msg_id: number;
  readonly name_crc: string;
  readonly hex: string;
}

function sharedDir(): string {
  return process.env['VPPNET_SHARED_DIR'] ?? path.resolve(process.cwd(), '../shared');
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

function readTranscriptFrames(dir: string): TranscriptFrame[] {
  const frames: TranscriptFrame[] = [];
  for (const file of readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()) {
    const transcript = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as {
      frames: TranscriptFrame[];
    };
    frames.push(...transcript.frames);
  }
  return frames;
}

void describe('FrameParser on VPP 26.06 transcripts', () => {
  for (const transcript of ['26.06', '26.06-design']) {
    void it(`recovers every frame of vpp-transcripts/${transcript} in order from random chunkings`, (t: TestContext) => {
      const dir = path.join(sharedDir(), 'vpp-transcripts', transcript);
      if (!isDirectory(dir)) {
        t.skip(
          `no transcripts at ${dir}; set VPPNET_SHARED_DIR to the shared directory holding vpp-transcripts/`,
        );
        return;
      }
      const frames = readTranscriptFrames(dir);
      assert.ok(frames.length > 0, `no frames in ${dir}`);
      const payloads = frames.map((frame) => Buffer.from(frame.hex, 'hex'));
      payloads.forEach((payload, i) => {
        assert.equal(
          payload.readUInt16BE(0),
          frames[i]!.msg_id,
          `${frames[i]!.name_crc}: payload starts with its id`,
        );
      });
      if (transcript === '26.06') {
        // The message table reply is the large frame that must be reassembled across chunks.
        assert.ok(payloads.some((payload) => payload.length > 64 * 1024));
      }

      const stream = Buffer.concat(payloads.map(frameBytes));
      assert.deepEqual(parseChunks([stream]), payloads, 'whole stream in one chunk');
      for (let seed = 1; seed <= 20; seed++) {
        const random = seededRandom(seed);
        // VPP sends at most 4 KiB at a time; Node reads up to 64 KiB. Cover both and tiny chunks.
        const maxChunk = [4096, 65536, 50, 700][seed % 4]!;
        assert.deepEqual(parseChunks(randomChunks(stream, random, maxChunk)), payloads, `seed ${seed}`);
      }
    });
  }
});

describe('FrameParser.pushAt: frames in place', () => {
  it('hands whole frames as ranges of the chunk itself, and split ones from its own buffer', () => {
    const a = frameBytes(Buffer.from([0, 1, 2, 3]));
    const b = frameBytes(Buffer.from([0, 2, 9, 9, 9]));
    const c = frameBytes(Buffer.from([0, 3, 7]));
    const chunk1 = Buffer.concat([a, b, c.subarray(0, 5)]);
    const chunk2 = c.subarray(5);
    const parser = new FrameParser();
    const seen: { inChunk: boolean; start: number; payload: string }[] = [];
    for (const chunk of [chunk1, chunk2])
      parser.pushAt(chunk, (buf, start, end) =>
        seen.push({ inChunk: buf === chunk, start, payload: buf.subarray(start, end).toString('hex') }),
      );
    assert.deepEqual(seen, [
      { inChunk: true, start: FRAME_HEADER_LENGTH, payload: '00010203' },
      { inChunk: true, start: a.length + FRAME_HEADER_LENGTH, payload: '0002090909' },
      { inChunk: false, start: FRAME_HEADER_LENGTH, payload: '000307' },
    ]);
    assert.equal(parser.bufferedBytes, 0);
  });
});
