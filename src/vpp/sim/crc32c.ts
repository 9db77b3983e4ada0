/**
 * vppinfra's clib_crc32c (crc32.h): CRC-32C (Castagnoli), the SSE4.2 / ARMv8 CRC instruction's
 * polynomial, reflected, initial value 0 and no final inversion. The L2 FIB's bihash and the
 * classifier's tables pick their buckets with it (x86-64-v2 and armv8-a+crc builds).
 */
const CRC32C_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
})();

export function clibCrc32c(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) crc = ((crc >>> 8) ^ (CRC32C_TABLE[(crc ^ b) & 0xff] as number)) >>> 0;
  return crc;
}
