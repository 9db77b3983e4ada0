/**
 * A file of VPP socket frames written through one fixed buffer: the frame recorder's spill and the
 * replay files it writes. A from-empty pass sends 112k frames; a file keeps them out of the
 * measured process's memory, and the buffer keeps the writes few.
 */
import { closeSync, ftruncateSync, readSync, writeSync } from 'node:fs';
import {
  FRAME_HEADER_LENGTH,
  FrameParser,
  writeFrameHeader,
  type FrameSink,
} from '../../src/vpp/wire/frame.js';

const BUFFER_BYTES = 1 << 20;

export class FrameFile {
  readonly #fd: number;
  readonly #buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  #used = 0;
  /** Bytes in the file (not those still in the buffer). */
  #written = 0;

  /** `fd`: open for writing (and reading, for readFrames); closed by close(). */
  constructor(fd: number) {
    this.#fd = fd;
  }

  /** Appends the whole frame `buf[start, end)`, its 16-byte header included. */
  appendFrame(buf: Buffer, start: number, end: number): void {
    if (this.#used + end - start > BUFFER_BYTES) this.flush();
    if (end - start > BUFFER_BYTES) this.#write(buf.subarray(start, end));
    else {
      buf.copy(this.#buffer, this.#used, start, end);
      this.#used += end - start;
    }
  }

  /** Appends the frame of payload `buf[start, end)`: its header is a function of the length. */
  appendPayload(buf: Buffer, start: number, end: number): void {
    const length = FRAME_HEADER_LENGTH + end - start;
    if (this.#used + length > BUFFER_BYTES) this.flush();
    if (length > BUFFER_BYTES) {
      const frame = Buffer.allocUnsafe(length);
      writeFrameHeader(frame, end - start);
      buf.copy(frame, FRAME_HEADER_LENGTH, start, end);
      this.#write(frame);
      return;
    }
    writeFrameHeader(this.#buffer, end - start, this.#used);
    buf.copy(this.#buffer, this.#used + FRAME_HEADER_LENGTH, start, end);
    this.#used += length;
  }

  flush(): void {
    this.#write(this.#buffer.subarray(0, this.#used));
    this.#used = 0;
  }

  /** Empties the file. */
  truncate(): void {
    this.#used = 0;
    this.#written = 0;
    ftruncateSync(this.#fd, 0);
  }

  /** Hands each frame's payload in the file to `sink`, in order, read back a buffer at a time. */
  readPayloads(sink: FrameSink): void {
    this.flush();
    const parser = new FrameParser();
    const chunk = Buffer.allocUnsafe(BUFFER_BYTES);
    for (let position = 0; position < this.#written;) {
      const n = readSync(this.#fd, chunk, 0, Math.min(BUFFER_BYTES, this.#written - position), position);
      if (n === 0) break;
      parser.pushAt(chunk.subarray(0, n), sink);
      position += n;
    }
    if (parser.bufferedBytes > 0)
      throw new Error(`the frame file ends inside a frame (${this.#written} bytes)`);
  }

  close(): void {
    try {
      this.flush();
    } finally {
      closeSync(this.#fd);
    }
  }

  #write(bytes: Buffer): void {
    for (let done = 0; done < bytes.length;) {
      const n = writeSync(this.#fd, bytes, done, bytes.length - done, this.#written);
      done += n;
      this.#written += n;
    }
  }
}
