/**
 * Encoding and decoding of whole messages. `encodeMessage` returns a complete socket frame (the
 * 16-byte header included) in one allocation, so the transport writes it without copying.
 */
import { VppError } from '../errors.js';
import { FRAME_HEADER_LENGTH, writeFrameHeader } from '../wire/frame.js';
import { compileFields, fixedSizeOf } from './compile.js';
import { compileMessageDecoder, compileMessageDecoderAt } from './decoder.js';
import type { Message, MessageDef, MessageInput } from './schema.js';

/** Values the client core supplies for every request; never part of a caller's input. */
export interface MessageHeader {
  readonly clientIndex?: number;
  readonly context?: number;
}

interface CompiledMessage {
  readonly fixedSize: number | null;
  /** Bytes of the payload after the message id. */
  readonly size: (
    input: Readonly<Record<string, unknown>>,
    clientIndex: number | undefined,
    context: number | undefined,
  ) => number;
  /** Writes the whole frame of `size` payload bytes at `buf[at]`; returns the offset after it. */
  readonly write: (
    buf: Buffer,
    at: number,
    size: number,
    msgId: number,
    input: Readonly<Record<string, unknown>>,
    clientIndex: number | undefined,
    context: number | undefined,
  ) => number;
  readonly decode: (payload: Buffer) => Record<string, unknown>;
  /** Offset of `context` in the payload (message id included), or -1 when the message has none. */
  readonly contextOffset: number;
}

const compiledMessages = new WeakMap<MessageDef, CompiledMessage>();

const MSG_ID_SIZE = 2;

/** What a field's value comes from: the caller's input, or the header values the client supplies. */
const FROM_INPUT = 0;
const FROM_CONTEXT = 1;
const FROM_CLIENT_INDEX = 2;

function compileMessage(def: MessageDef): CompiledMessage {
  const fields = compileFields(def.name, def.fields);
  const fixedSize = fixedSizeOf(fields);
  const defaults = def.defaults;
  const sources = fields.map((f) =>
    f.name === 'context' ? FROM_CONTEXT : f.name === 'client_index' ? FROM_CLIENT_INDEX : FROM_INPUT,
  );
  let contextOffset = -1;
  let off = MSG_ID_SIZE;
  for (const f of fields) {
    if (f.name === 'context') {
      contextOffset = off;
      break;
    }
    if (f.fixedSize === null) break;
    off += f.fixedSize;
  }
  const valueOf = (
    input: Readonly<Record<string, unknown>>,
    i: number,
    clientIndex: number | undefined,
    context: number | undefined,
  ): unknown => {
    const source = sources[i];
    if (source === FROM_CONTEXT) return context ?? input.context;
    if (source === FROM_CLIENT_INDEX) return clientIndex ?? input.client_index;
    const name = (fields[i] as (typeof fields)[number]).name;
    const v = input[name];
    return v === undefined && defaults ? defaults[name] : v;
  };
  return {
    fixedSize,
    contextOffset,
    size(input, clientIndex, context) {
      if (fixedSize !== null) return fixedSize;
      let size = 0;
      for (let i = 0; i < fields.length; i++)
        size += (fields[i] as (typeof fields)[number]).size(valueOf(input, i, clientIndex, context), input);
      return size;
    },
    write(buf, at, size, msgId, input, clientIndex, context) {
      const end = at + FRAME_HEADER_LENGTH + MSG_ID_SIZE + size;
      writeFrameHeader(buf, MSG_ID_SIZE + size, at);
      let o = buf.writeUInt16BE(msgId, at + FRAME_HEADER_LENGTH);
      for (let i = 0; i < fields.length; i++)
        o = (fields[i] as (typeof fields)[number]).write(
          buf,
          o,
          valueOf(input, i, clientIndex, context),
          input,
        );
      if (o !== end) {
        throw new VppError(
          'VPPNET_ERR_ENCODE',
          `${def.name}: wrote ${o - at} of ${end - at} bytes (codec bug)`,
        );
      }
      return end;
    },
    decode: compileMessageDecoder(def.name, def.fields),
  };
}

function compiled(def: MessageDef): CompiledMessage {
  let c = compiledMessages.get(def);
  if (!c) {
    c = compileMessage(def);
    compiledMessages.set(def, c);
  }
  return c;
}

/** Encodes `input` as message `def` with the id the connected VPP assigned to it. */
export function encodeMessage<M extends MessageDef>(
  def: M,
  msgId: number,
  input: MessageInput<M>,
  header: MessageHeader = {},
): Buffer {
  try {
    const c = compiled(def);
    const values = input as Readonly<Record<string, unknown>>;
    const size = c.size(values, header.clientIndex, header.context);
    const buf = Buffer.allocUnsafe(FRAME_HEADER_LENGTH + MSG_ID_SIZE + size);
    c.write(buf, 0, size, msgId, values, header.clientIndex, header.context);
    return buf;
  } catch (err) {
    throw encodeFailure(def, err);
  }
}

/**
 * Where encodeFrameInto() writes: a buffer it grows (by replacing it) when a frame does not fit,
 * so that a caller encoding one frame at a time reuses the same memory.
 */
export interface FrameScratch {
  buf: Buffer;
}

/**
 * Encodes one whole frame into `scratch.buf` from offset 0, growing it if needed, and returns the
 * frame's length; the client core then hands `scratch.buf[0, length)` to a transport that copies.
 * The header values are plain arguments: nothing is allocated per frame.
 */
export function encodeFrameInto(
  scratch: FrameScratch,
  def: MessageDef,
  msgId: number,
  input: Readonly<Record<string, unknown>>,
  clientIndex: number,
  context: number,
): number {
  try {
    const c = compiled(def);
    const size = c.size(input, clientIndex, context);
    const length = FRAME_HEADER_LENGTH + MSG_ID_SIZE + size;
    if (scratch.buf.length < length)
      scratch.buf = Buffer.allocUnsafe(Math.max(length, 2 * scratch.buf.length));
    return c.write(scratch.buf, 0, size, msgId, input, clientIndex, context);
  } catch (err) {
    throw encodeFailure(def, err);
  }
}

function encodeFailure(def: MessageDef, err: unknown): VppError {
  if (err instanceof VppError) return err;
  return new VppError('VPPNET_ERR_ENCODE', `${def.name}: ${(err as Error).message}`, { cause: err });
}

/** Decodes a payload (message id first, socket header excluded). Trailing bytes are ignored. */
export function decodeMessage<M extends MessageDef>(def: M, payload: Buffer): Message<M> {
  try {
    return compiled(def).decode(payload) as Message<M>;
  } catch (err) {
    if (err instanceof VppError) {
      throw new VppError('VPPNET_ERR_DECODE', `${def.name}: ${err.message}`, { cause: err });
    }
    throw new VppError('VPPNET_ERR_DECODE', `${def.name}: ${(err as Error).message}`, { cause: err });
  }
}

const decodersAt = new WeakMap<MessageDef, (buf: Buffer, start: number, end: number) => unknown>();

/**
 * As decodeMessage, for a payload in place at `buf[start, end)` (a frame inside the socket's
 * chunk), so that no Buffer is made per frame. A payload that does not decode throws the same
 * error as decodeMessage of the payload alone.
 */
export function decodeMessageAt<M extends MessageDef>(
  def: M,
  buf: Buffer,
  start: number,
  end: number,
): Message<M> {
  let decode = decodersAt.get(def);
  if (decode === undefined) decodersAt.set(def, (decode = compileMessageDecoderAt(def.name, def.fields)));
  try {
    return decode(buf, start, end) as Message<M>;
  } catch {
    // Rare: decoded again alone, for the error (and offsets) decodeMessage gives.
    return decodeMessage(def, buf.subarray(start, end));
  }
}

/** Where `context` is in this message's payload, or -1; lets the client route replies unparsed. */
export function contextOffsetOf(def: MessageDef): number {
  return compiled(def).contextOffset;
}

/** The payload size of a message without variable parts, or null. */
export function fixedPayloadSizeOf(def: MessageDef): number | null {
  const size = compiled(def).fixedSize;
  return size === null ? null : MSG_ID_SIZE + size;
}

/** The message id of a payload. */
export function messageIdOf(payload: Buffer): number {
  return payload.readUInt16BE(0);
}
