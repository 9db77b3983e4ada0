/**
 * An independent builder of frame bytes for tests. It spells out the layout from
 * ../shared/vpp-wire.md byte by byte and shares no code with writeFrameHeader: a test that used
 * the production writer would agree with any mistake in it.
 */

/** 8 zero bytes, big-endian u32 payload length, 4 zero bytes. */
export function headerBytes(payloadLength: number): Buffer {
  // prettier-ignore
  return Buffer.from([
    0, 0, 0, 0, 0, 0, 0, 0,
    (payloadLength >>> 24) & 0xff,
    (payloadLength >>> 16) & 0xff,
    (payloadLength >>> 8) & 0xff,
    payloadLength & 0xff,
    0, 0, 0, 0,
  ]);
}

/** The whole frame: header, then the payload. */
export function frameBytes(payload: Buffer): Buffer {
  return Buffer.concat([headerBytes(payload.length), payload]);
}

/** A payload of `length` bytes (at least 2) starting with big-endian `msgId`, with a recognisable fill. */
export function payloadBytes(msgId: number, length: number): Buffer {
  const payload = Buffer.alloc(length);
  payload[0] = (msgId >>> 8) & 0xff;
  payload[1] = msgId & 0xff;
  for (let i = 2; i < length; i++) {
    // Not periodic in 256 (nor any power of two), so bytes copied to a wrong offset show up.
    payload[i] = (msgId * 31 + i * 7 + (i >>> 8) * 13 + (i >>> 16) * 17) & 0xff;
  }
  return payload;
}
