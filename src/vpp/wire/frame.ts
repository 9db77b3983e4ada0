/**
 * Framing of VPP's binary API on a stream socket, without any socket.
 *
 * Every message is a 16-byte header followed by the payload:
 *
 *   offset 0   8 bytes  ignored (VPP puts an internal pointer there); we send zeros
 *   offset 8   u32 BE   payload length, header excluded
 *   offset 12  4 bytes  ignored; we send zeros
 *   offset 16  payload  u16 BE message id, then the message's fields
 *
 * A stream read can hold several frames, and one frame can be split across reads (VPP writes at
 * most 4 KiB per send), so inbound bytes go through a FrameParser.
 */
import { VppError } from '../errors.js';

export const FRAME_HEADER_LENGTH = 16;

/** Where the big-endian u32 payload length sits inside the header. */
const PAYLOAD_LENGTH_OFFSET = 8;

/** The smallest meaningful payload: the u16 message id alone. */
export const MIN_PAYLOAD_LENGTH = 2;

/**
 * Upper bound on one payload unless the caller chooses another. The largest frames VPP sends in
 * normal use are the `sockclnt_create_reply` message table (~72 KB) and `get_api_json_reply`
 * (several MB); 64 MiB leaves ample room for those while still stopping a corrupt length field
 * from making us buffer gigabytes.
 */
export const DEFAULT_MAX_PAYLOAD_LENGTH = 64 * 1024 * 1024;

/** The length field is a u32, so no payload can be longer than this. */
const MAX_U32 = 0xffff_ffff;

/**
 * Smallest internal buffer allocated for a partial frame. Most partial frames are small requests
 * or replies cut by a read boundary; a few KiB avoids regrowing for them.
 */
const MIN_BUFFER_CAPACITY = 8 * 1024;

/** Shared by every drained parser, so an idle connection holds no buffer memory. */
const EMPTY_BUFFER = Buffer.alloc(0);

/**
 * Writes a frame header for a payload of `payloadLength` bytes into `buf` at `at` (0): 8 zero
 * bytes, the length as a big-endian u32, 4 zero bytes. The payload itself is the caller's
 * business (typically encoded straight after the header into the same buffer).
 */
export function writeFrameHeader(buf: Buffer, payloadLength: number, at = 0): void {
  if (buf.length < at + FRAME_HEADER_LENGTH) {
    throw new RangeError(`frame header needs ${FRAME_HEADER_LENGTH} bytes, buffer has ${buf.length - at}`);
  }
  // writeUInt32BE would silently truncate a fractional length; catch that here.
  if (!Number.isInteger(payloadLength) || payloadLength < 0 || payloadLength > MAX_U32) {
    throw new RangeError(`payload length must be a u32, got ${payloadLength}`);
  }
  buf.writeUInt32BE(0, at);
  buf.writeUInt32BE(0, at + 4);
  buf.writeUInt32BE(payloadLength, at + PAYLOAD_LENGTH_OFFSET);
  buf.writeUInt32BE(0, at + 12);
}

export interface FrameParserOptions {
  /** Largest payload accepted; a header announcing more fails the stream. */
  readonly maxPayloadLength?: number;
}

/**
 * Receives one payload. `payload` is a view into a buffer the parser (or the socket) owns and
 * reuses: it is valid only until the callback returns. Decode it, or copy it
 * (`Buffer.from(payload)`), before returning.
 */
export type FrameCallback = (payload: Buffer) => void;

/**
 * Receives one payload in place: `buf[start, end)`, where `buf` is the socket's chunk itself when
 * the frame lies whole in it (else the parser's buffer). No Buffer is made per frame. The same
 * lifetime as FrameCallback's: valid only until the callback returns.
 */
export type FrameSink = (buf: Buffer, start: number, end: number) => void;

/**
 * Cuts a byte stream into frame payloads.
 *
 * Modelled on node-postgres pg-protocol's parser: bytes of an incomplete frame are kept as a
 * cursor range [#start, #end) in one internal buffer, which is compacted to the front or grown by
 * doubling when a chunk does not fit; chunks are never concatenated per read. When nothing is
 * buffered, whole frames are handed out as views of the incoming chunk itself, so the common case
 * (a read holding only whole frames) copies nothing. Once drained, the parser drops its buffer.
 *
 * Unlike pg-protocol it never writes into, or keeps a reference to, a caller's chunk: the
 * remainder of a chunk is copied into the parser's own buffer, so callers may reuse chunks.
 *
 * A payload length above the maximum throws VppError VPPNET_ERR_FRAME_TOO_LARGE, and one below 2
 * (no room for the message id) throws VPPNET_ERR_DECODE. The stream cannot be resynchronised after
 * either: the offending header stays buffered, so every later push throws again until reset().
 */
export class FrameParser {
  readonly #maxPayloadLength: number;
  #buffer: Buffer = EMPTY_BUFFER;
  /** Offset in #buffer of the first byte not yet handed out. */
  #start = 0;
  /** Offset in #buffer just past the last buffered byte. */
  #end = 0;
  /**
   * Bumped by reset(). A push in progress compares it after every callback, so a callback that
   * resets the parser (say, because it tore the connection down) stops the push at once.
   */
  #generation = 0;
  /** Guards against push() from inside onFrame, which would interleave two streams' bytes. */
  #pushing = false;

  constructor(opts: FrameParserOptions = {}) {
    const maxPayloadLength = opts.maxPayloadLength ?? DEFAULT_MAX_PAYLOAD_LENGTH;
    if (
      !Number.isInteger(maxPayloadLength) ||
      maxPayloadLength < MIN_PAYLOAD_LENGTH ||
      maxPayloadLength > MAX_U32
    ) {
      throw new RangeError(
        `maxPayloadLength must be an integer from ${MIN_PAYLOAD_LENGTH} to ${MAX_U32}, got ${maxPayloadLength}`,
      );
    }
    this.#maxPayloadLength = maxPayloadLength;
  }

  /** Bytes received but not yet handed out: the start of an incomplete frame. */
  get bufferedBytes(): number {
    return this.#end - this.#start;
  }

  /**
   * Feeds one chunk of the stream and calls `onFrame` for every frame it completes, in order and
   * synchronously. If `onFrame` throws, the exception propagates and the frames after it stay
   * buffered for the next push. If `onFrame` calls reset(), no further frames are delivered.
   * `onFrame` must not call push() on the same parser.
   */
  push(chunk: Buffer, onFrame: FrameCallback): void {
    this.pushAt(chunk, (buf, start, end) => onFrame(buf.subarray(start, end)));
  }

  /** As push(), handing each payload to `sink` as a range of the buffer holding it. */
  pushAt(chunk: Buffer, sink: FrameSink): void {
    if (this.#pushing) {
      throw new Error('FrameParser.push() called from inside its own frame callback');
    }
    if (chunk.length === 0) {
      return;
    }
    const generation = this.#generation;
    let source: Buffer;
    let offset: number;
    let end: number;
    if (this.#start === this.#end) {
      // Nothing buffered: parse the chunk in place and copy only its incomplete tail, if any.
      source = chunk;
      offset = 0;
      end = chunk.length;
    } else {
      this.#append(chunk);
      source = this.#buffer;
      offset = this.#start;
      end = this.#end;
    }
    this.#pushing = true;
    try {
      while (end - offset >= FRAME_HEADER_LENGTH) {
        const payloadLength = source.readUInt32BE(offset + PAYLOAD_LENGTH_OFFSET);
        this.#checkPayloadLength(payloadLength);
        const frameEnd = offset + FRAME_HEADER_LENGTH + payloadLength;
        if (frameEnd > end) {
          break;
        }
        const payloadStart = offset + FRAME_HEADER_LENGTH;
        // Advance before the callback so that a throwing callback does not see its frame again.
        offset = frameEnd;
        sink(source, payloadStart, frameEnd);
        if (this.#generation !== generation) {
          return;
        }
      }
    } finally {
      this.#pushing = false;
      if (this.#generation === generation) {
        this.#keep(source, offset, end);
      }
    }
  }

  /** Forgets any partial frame, e.g. when the connection it came from is gone. */
  reset(): void {
    this.#generation++;
    this.#release();
  }

  #checkPayloadLength(payloadLength: number): void {
    if (payloadLength > this.#maxPayloadLength) {
      throw new VppError(
        'VPPNET_ERR_FRAME_TOO_LARGE',
        `frame announces a ${payloadLength}-byte payload, more than the maximum of ${this.#maxPayloadLength}`,
      );
    }
    if (payloadLength < MIN_PAYLOAD_LENGTH) {
      throw new VppError(
        'VPPNET_ERR_DECODE',
        `frame announces a ${payloadLength}-byte payload, too short for a message id`,
      );
    }
  }

  /** Records that source[offset, end) is still unparsed, after a push. */
  #keep(source: Buffer, offset: number, end: number): void {
    if (offset === end) {
      this.#release();
    } else if (source === this.#buffer) {
      this.#start = offset;
    } else {
      // The tail of a caller's chunk; nothing else is buffered (#buffer is empty).
      this.#append(source.subarray(offset, end));
    }
  }

  /** Copies `chunk` after the buffered bytes, compacting or growing the buffer if it lacks room. */
  #append(chunk: Buffer): void {
    const buffered = this.#end - this.#start;
    if (this.#end + chunk.length > this.#buffer.length) {
      const needed = buffered + chunk.length;
      if (needed <= this.#buffer.length) {
        this.#buffer.copyWithin(0, this.#start, this.#end);
      } else {
        let capacity = Math.max(this.#buffer.length * 2, MIN_BUFFER_CAPACITY);
        while (capacity < needed) {
          capacity *= 2;
        }
        // Every byte of the new buffer below #end gets written before it is read.
        const grown = Buffer.allocUnsafe(capacity);
        this.#buffer.copy(grown, 0, this.#start, this.#end);
        this.#buffer = grown;
      }
      this.#start = 0;
      this.#end = buffered;
    }
    chunk.copy(this.#buffer, this.#end);
    this.#end += chunk.length;
  }

  #release(): void {
    this.#buffer = EMPTY_BUFFER;
    this.#start = 0;
    this.#end = 0;
  }
}
