/**
 * Encoding and decoding of whole messages. `encodeMessage` returns a complete socket frame (the
 * 16-byte header included) in one allocation, so the transport writes it without copying.
 */
import { VppError } from '../errors.js';
import { FRAME_HEADER_LENGTH, writeFrameHeader } from '../wire/frame.js';
import { compileFields, fixedSizeOf } from './compile.js';
import { compileMessageDecoder } from './decoder.js';
import type { Message, MessageDef, MessageInput } from './schema.js';

/** Values the client core supplies for every request; never part of a caller's input. */
export interface MessageHeader {
  readonly clientIndex?: number;
  readonly context?: number;
}

interface CompiledMessage {
  readonly fixedSize: number | null;
  readonly encode: (msgId: number, input: Readonly<Record<string, unknown>>, header: MessageHeader) => Buffer;
  readonly decode: (payload: Buffer) => Record<string, unknown>;
  /** Offset of `context` in the payload (message id included), or -1 when the message has none. */
  readonly contextOffset: number;
}

const compiledMessages = new WeakMap<MessageDef, CompiledMessage>();

const MSG_ID_SIZE = 2;

function compileMessage(def: MessageDef): CompiledMessage {
  const fields = compileFields(def.name, def.fields);
  const fixedSize = fixedSizeOf(fields);
  const defaults = def.defaults;
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
    name: string,
    header: MessageHeader,
  ): unknown => {
    if (name === 'context') return header.context ?? input.context;
    if (name === 'client_index') return header.clientIndex ?? input.client_index;
    const v = input[name];
    return v === undefined && defaults ? defaults[name] : v;
  };
  return {
    fixedSize,
    contextOffset,
    encode(msgId, input, header) {
      let size = fixedSize;
      if (size === null) {
        size = 0;
        for (const f of fields) size += f.size(valueOf(input, f.name, header), input);
      }
      const buf = Buffer.allocUnsafe(FRAME_HEADER_LENGTH + MSG_ID_SIZE + size);
      writeFrameHeader(buf, MSG_ID_SIZE + size);
      let o = buf.writeUInt16BE(msgId, FRAME_HEADER_LENGTH);
      for (const f of fields) o = f.write(buf, o, valueOf(input, f.name, header), input);
      if (o !== buf.length) {
        throw new VppError('VPPNET_ERR_ENCODE', `${def.name}: wrote ${o} of ${buf.length} bytes (codec bug)`);
      }
      return buf;
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
    return compiled(def).encode(msgId, input, header);
  } catch (err) {
    if (err instanceof VppError) throw err;
    throw new VppError('VPPNET_ERR_ENCODE', `${def.name}: ${(err as Error).message}`, { cause: err });
  }
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
