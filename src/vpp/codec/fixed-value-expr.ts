/**
 * The source of an expression reading a fixed-size value at a constant offset, for the
 * straight-line decoders (decoder.ts, reusing-decoder.ts): scalars, address leaves in their
 * selected form, structs and unions as object literals, fixed arrays through a compiled helper,
 * all-zero composites as one shared frozen value. Also the helpers object every generated body
 * receives, so that all compiled decoders share one set of helpers and one table of sub-decoders.
 *
 * The source is generated from the definitions (schema.ts), never from input.
 */
import { VppError } from '../errors.js';
import { isArmCondition, pick, type FieldSelection } from './field-selection.js';
import { fixedSize } from './fixed-size.js';
import type { TypeRef } from './schema.js';
import { readIp4, readIp6, readMac } from './text-format.js';

/** The text read of an address alias, or its other form (LeafForm). */
function leafExpr(format: 'ip4' | 'ip6' | 'mac', o: string, sel: FieldSelection): string {
  if (sel === true) return `h.${format}(b, ${o})`;
  if (sel === 'u32') {
    if (format !== 'ip4') throw new Error(`codec: form u32 is for IPv4 addresses, not ${format}`);
    return `b.readUInt32BE(${o})`;
  }
  if (sel === 'repeat') return `h.repeat[${registerRepeat(format)}](b, ${o})`;
  if (sel === 'bytes') return `h.bytes(b, ${o}, ${o} + ${FORMAT_BYTES[format]})`;
  throw new Error(`codec: an address (${format}) has no parts to select`);
}

/** Bytes of each address format, for the 'repeat' form's comparison and the 'bytes' form's copy. */
const FORMAT_BYTES = { ip4: 4, ip6: 16, mac: 6 } as const;

/**
 * A 'repeat' reader: the text of the address at `o`, the last string again when its bytes are the
 * last ones read. One per place in a compiled selection, so runs are per field.
 */
function registerRepeat(format: 'ip4' | 'ip6' | 'mac'): number {
  const n = FORMAT_BYTES[format];
  const read = format === 'ip4' ? readIp4 : format === 'ip6' ? readIp6 : readMac;
  // The last bytes as numbers, compared in place: no native call per entry (Buffer.compare's).
  const last = new Uint8Array(n);
  let text: string | undefined;
  helpers.repeat.push((b, o) => {
    if (text !== undefined) {
      let same = true;
      for (let i = 0; i < n; i++)
        if (b[o + i] !== last[i]) {
          same = false;
          break;
        }
      if (same) return text;
    }
    for (let i = 0; i < n; i++) last[i] = b[o + i] as number;
    return (text = read(b, o));
  });
  return helpers.repeat.length - 1;
}

/** The helpers a generated body may call, passed in by reference (no globals). */
export interface Helpers {
  readonly ip4: typeof readIp4;
  readonly ip6: typeof readIp6;
  readonly mac: typeof readMac;
  readonly bytes: (b: Buffer, start: number, end: number) => Uint8Array;
  readonly cstr: (b: Buffer, start: number, length: number) => string;
  readonly short: (what: string, n: number, off: number) => VppError;
  /** Decoders of nested variable-size structs and of fixed arrays, by index. */
  readonly sub: Array<(b: Buffer, off: number, end: number) => unknown>;
  /** True when `b[off, off + n)` is all zero bytes. */
  readonly isZero: (b: Buffer, off: number, n: number) => boolean;
  /** The shared, frozen value of an all-zero composite, by index (see `zeroShared`). */
  readonly zeros: unknown[];
  /** The 'repeat' form's readers, by index (see `registerRepeat`). */
  readonly repeat: Array<(b: Buffer, off: number) => string>;
}

export const helpers: Helpers = {
  ip4: readIp4,
  ip6: readIp6,
  mac: readMac,
  // A copy: the frame buffer is reused once the callback returns.
  bytes: (b, start, end) => Uint8Array.prototype.slice.call(b, start, end),
  cstr: (b, start, length) => {
    let nul = b.indexOf(0, start);
    if (nul < 0 || nul > start + length) nul = start + length;
    return b.toString('utf8', start, nul);
  },
  short: (what, n, off) =>
    new VppError('VPPNET_ERR_DECODE', `message too short: ${what} needs ${n} bytes at offset ${off}`),
  sub: [],
  isZero: (b, off, n) => {
    for (let i = off; i < off + n; i++) if (b[i] !== 0) return false;
    return true;
  },
  zeros: [],
  repeat: [],
};

/**
 * Composites of at least this many bytes that are all zero on the wire decode to one shared,
 * frozen value. A dump's unused parts are mostly zeros: the 16-entry label stack of every path,
 * the next hop of a path without one. Decoded messages are read-only by type (schema.ts), and a
 * dump kept whole (60k routes) is otherwise mostly these copies, which the GC must carry.
 */
const MIN_SHARED_ZERO_BYTES = 8;

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !(v instanceof Uint8Array)) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

/** `expr` (reading at `o + k`), or the shared zero value when its `size` bytes are all zero. */
function zeroShared(expr: string, k: number, size: number): string {
  if (size < MIN_SHARED_ZERO_BYTES || expr.includes('h.bytes(')) return expr;
  // The zero value is the expression itself, evaluated over zero bytes.
  const zero = compile(['b', 'o0', 'end'], `const o = o0 - ${k};\nreturn ${expr};`)(
    Buffer.alloc(k + size),
    k,
    k + size,
  );
  helpers.zeros.push(deepFreeze(zero));
  return `(h.isZero(b, ${at(k)}, ${size}) ? h.zeros[${helpers.zeros.length - 1}] : ${expr})`;
}

/** `o` + a constant, as source. */
function at(k: number): string {
  return k === 0 ? 'o' : `o + ${k}`;
}

export function registerSub(fn: (b: Buffer, off: number, end: number) => unknown): number {
  helpers.sub.push(fn);
  return helpers.sub.length - 1;
}

const fixedArrayDecoders = new Map<TypeRef, Map<number, number>>();

/** A helper decoding `T[length]` of a fixed-size T other than u8 and string. */
function fixedArraySub(type: TypeRef, length: number, elSize: number, sel: FieldSelection = true): number {
  if (sel !== true) {
    // A part of each element: compiled for this selection alone (selections are compiled once).
    const body =
      `const a = new Array(${length});\n` +
      `for (let i = 0; i < ${length}; i++) { const o = o0 + i * ${elSize}; a[i] = ${fixedExpr(type, undefined, 0, sel)}; }\n` +
      'return a;';
    return registerSub(compile(['b', 'o0', 'end'], body));
  }
  let byLength = fixedArrayDecoders.get(type);
  if (!byLength) fixedArrayDecoders.set(type, (byLength = new Map<number, number>()));
  let index = byLength.get(length);
  if (index === undefined) {
    const body =
      `const a = new Array(${length});\n` +
      `for (let i = 0; i < ${length}; i++) { const o = o0 + i * ${elSize}; a[i] = ${fixedExpr(type, undefined, 0)}; }\n` +
      'return a;';
    index = registerSub(compile(['b', 'o0', 'end'], body));
    byLength.set(length, index);
  }
  return index;
}

/** An expression reading (the selected part of) a fixed-size value at `o + k` (bounds already checked). */
export function fixedExpr(
  type: TypeRef,
  length: number | undefined,
  k: number,
  sel: FieldSelection = true,
  siblings?: ReadonlyMap<string, string>,
): string {
  if (isArmCondition(sel)) throw new Error('codec: a condition (when/is) is for a union arm only');
  if (typeof sel === 'string' && (typeof type === 'string' || type.kind !== 'alias' || length !== undefined))
    throw new Error(`codec: form ${sel} is for an address only`);
  const o = at(k);
  if (length !== undefined) {
    if (type === 'u8') return `h.bytes(b, ${o}, ${at(k + length)})`;
    if (type === 'string') return `h.cstr(b, ${o}, ${length})`;
    const elSize = fixedSize(type) as number;
    return zeroShared(`h.sub[${fixedArraySub(type, length, elSize, sel)}](b, ${o}, end)`, k, elSize * length);
  }
  if (typeof type === 'string') {
    switch (type) {
      case 'u8':
        return `b[${o}]`;
      case 'i8':
        return `b.readInt8(${o})`;
      case 'bool':
        return `b[${o}] !== 0`;
      case 'u16':
        return `b.readUInt16BE(${o})`;
      case 'i16':
        return `b.readInt16BE(${o})`;
      case 'u32':
        return `b.readUInt32BE(${o})`;
      case 'i32':
        return `b.readInt32BE(${o})`;
      case 'u64':
        return `b.readBigUInt64BE(${o})`;
      case 'i64':
        return `b.readBigInt64BE(${o})`;
      case 'f64':
        // Host order, not network order: VPP copies doubles without swapping.
        return `b.readDoubleLE(${o})`;
      case 'string':
        throw new Error('codec: string has no fixed size');
    }
  }
  switch (type.kind) {
    case 'enum':
    case 'enumflag':
      return fixedExpr(type.width, undefined, k);
    case 'alias':
      if (type.format !== undefined) return leafExpr(type.format, o, sel);
      return fixedExpr(type.type, type.length, k, sel);
    case 'struct': {
      const parts: string[] = [];
      // Scalar fields' reads, for a union arm's condition (ArmCondition).
      const siblings = new Map<string, string>();
      let off = k;
      for (const f of type.fields) {
        const len = f.length === 3 ? f[2] : undefined;
        if (len === undefined && isScalar(f[1])) siblings.set(f[0], fixedExpr(f[1], undefined, off));
        off += fixedSize(f[1], len) as number;
      }
      off = k;
      for (const f of type.fields) {
        const len = f.length === 3 ? f[2] : undefined;
        const fsel = pick(sel, f[0]);
        if (fsel !== undefined)
          parts.push(`${JSON.stringify(f[0])}: ${fixedExpr(f[1], len, off, fsel, siblings)}`);
        off += fixedSize(f[1], len) as number;
      }
      return zeroShared(`{ ${parts.join(', ')} }`, k, off - k);
    }
    case 'union': {
      // Every arm from the same bytes, as the generic codec does: which one is meant is the
      // caller's to know (from the struct's af or type field), unless the selection says
      // (ArmCondition).
      let conditional = false;
      const arms = type.arms
        .filter((a) => pick(sel, a[0]) !== undefined)
        .map((a) => {
          const asel = pick(sel, a[0]) as FieldSelection;
          const len = a.length === 3 ? a[2] : undefined;
          if (!isArmCondition(asel)) return `${JSON.stringify(a[0])}: ${fixedExpr(a[1], len, k, asel)}`;
          const sibling = siblings?.get(asel.when);
          if (sibling === undefined)
            throw new Error(`codec: ${type.name}.${a[0]}: no field ${asel.when} beside it to test`);
          conditional = true;
          const test = `${sibling} === ${Number(asel.is)}`;
          return `${JSON.stringify(a[0])}: (${test} ? ${fixedExpr(a[1], len, k, asel.select)} : undefined)`;
        });
      const expr = `{ ${arms.join(', ')} }`;
      // A conditional arm depends on bytes outside the union: no shared zero value of it alone.
      return conditional ? expr : zeroShared(expr, k, fixedSize(type) as number);
    }
  }
}

/** A number read: an integer or an enum (what an ArmCondition can test). */
export function isScalar(type: TypeRef): boolean {
  if (typeof type === 'string') return type !== 'string' && type !== 'bool';
  return type.kind === 'enum' || type.kind === 'enumflag';
}

function compile(params: readonly string[], body: string): (b: Buffer, off: number, end: number) => unknown {
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- source generated from definitions
  const make = new Function('h', `return function (${params.join(', ')}) {\n${body}\n};`) as (
    h: Helpers,
  ) => (b: Buffer, off: number, end: number) => unknown;
  return make(helpers);
}
