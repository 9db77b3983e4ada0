/**
 * Straight-line decoders, compiled once per message and struct from its definition.
 *
 * The generic codec (compile.ts) reads a message field by field through closures and a cursor
 * object per nested union; a dump of 60k ip_route_details spent more time in those calls and in
 * the garbage collector than VPP took to send them. Here each definition becomes one function
 * whose body reads every fixed-size field at a constant offset and builds nested structs and
 * unions as object literals: one bounds check per fixed-size run of fields, no cursor, no
 * closure call per field. The values are exactly the generic codec's (the codec tests decode
 * every message both ways and compare), so callers see the same plain objects.
 *
 * The source is generated from the definitions (schema.ts), never from input, and compiled
 * with `new Function` once per definition at first use.
 */
import { VppError } from '../errors.js';
import type { FieldDef, TypeRef } from './schema.js';
import { readIp4, readIp6, readMac } from './text-format.js';

/**
 * Which parts of a decoded value to build: `true` for all of it, or, for a struct or union (or
 * an array of them), the fields or arms wanted, each again a selection. What is not selected is
 * skipped over, never built. The typed form is `Selection` in selection.ts.
 */
export type FieldSelection =
  true | LeafForm | ArmCondition | { readonly [name: string]: FieldSelection | undefined };

/**
 * Another form of an address leaf, for dumps of 100k entries read into columns:
 * - `'u32'`: an IPv4 address (ip4_address alias) as its unsigned 32-bit value, 10.0.0.1 →
 *   0x0a000001, with no text made;
 * - `'repeat'`: an IPv4 or IPv6 address or a MAC as text, but the same string as the last one
 *   this selection decoded at that place when the bytes are the same (a dump's entries come in
 *   runs with one BSID): formatted once a run, equal to the full decoder's text;
 * - `'bytes'`: an address or a MAC as a copy of its bytes (4, 16 or 6), network order, with no
 *   text made (an IPv6 steering entry's prefix).
 */
export type LeafForm = 'u32' | 'repeat' | 'bytes';

/**
 * A union arm built only when a sibling field of the enclosing struct has a value, e.g. an
 * address's `ip6` arm only when its `af` is 1; else the arm is undefined. The arms the caller
 * will not read are then never built (every arm is, otherwise: the codec does not know which
 * one is meant).
 */
export interface ArmCondition {
  readonly when: string;
  readonly is: number;
  readonly select: FieldSelection;
}

function isArmCondition(sel: FieldSelection | undefined): sel is ArmCondition {
  return typeof sel === 'object' && typeof sel.when === 'string' && 'select' in sel;
}

/** The selection for field `name` of a value selected by `sel`; undefined when not wanted. */
function pick(sel: FieldSelection, name: string): FieldSelection | undefined {
  if (sel === true) return true;
  if (typeof sel === 'string')
    throw new Error(`codec: form ${sel} selected for a value with fields (${name})`);
  if (isArmCondition(sel)) throw new Error(`codec: a condition selected for a value with fields (${name})`);
  return sel[name];
}

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
interface Helpers {
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

const helpers: Helpers = {
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

/** The byte size of a type with no variable part, or null. */
function fixedSize(type: TypeRef, length?: number): number | null {
  if (length !== undefined) {
    if (length === 0) return null;
    const el = type === 'u8' || type === 'string' ? 1 : fixedSize(type);
    return el === null ? null : el * length;
  }
  if (typeof type === 'string') {
    switch (type) {
      case 'u8':
      case 'i8':
      case 'bool':
        return 1;
      case 'u16':
      case 'i16':
        return 2;
      case 'u32':
      case 'i32':
        return 4;
      case 'u64':
      case 'i64':
      case 'f64':
        return 8;
      case 'string':
        return null;
    }
  }
  switch (type.kind) {
    case 'enum':
    case 'enumflag':
      return fixedSize(type.width);
    case 'alias':
      if (type.format === 'ip4') return 4;
      if (type.format === 'ip6') return 16;
      if (type.format === 'mac') return 6;
      return fixedSize(type.type, type.length);
    case 'struct':
      return fieldsSize(type.fields);
    case 'union': {
      let size = 0;
      for (const arm of type.arms) {
        const s = fixedSize(arm[1], arm.length === 3 ? arm[2] : undefined);
        if (s === null) return null;
        size = Math.max(size, s);
      }
      return size;
    }
  }
}

function fieldsSize(fields: readonly FieldDef[]): number | null {
  let n = 0;
  for (const f of fields) {
    if (f.length === 4) return null;
    const s = fixedSize(f[1], f.length === 3 ? f[2] : undefined);
    if (s === null) return null;
    n += s;
  }
  return n;
}

/** `o` + a constant, as source. */
function at(k: number): string {
  return k === 0 ? 'o' : `o + ${k}`;
}

function registerSub(fn: (b: Buffer, off: number, end: number) => unknown): number {
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
function fixedExpr(
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
function isScalar(type: TypeRef): boolean {
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

const structDecoders = new WeakMap<object, number>();

/**
 * The body for a field list: fixed runs read at constant offsets after one bounds check, variable
 * parts (count-sized arrays, string[], trailing arrays, variable structs) advance `o`. Fields
 * `sel` does not want are skipped over (a count is still read for its array), with the same
 * bounds checks as when they are built.
 */
function fieldsBody(owner: string, fields: readonly FieldDef[], sel: FieldSelection = true): string {
  const lines: string[] = [];
  const values: string[] = [];
  const counts = new Set(fields.map((f) => (f.length === 4 ? f[3] : undefined)));
  let i = 0;
  while (i < fields.length) {
    // The longest run of fixed-size fields from i.
    let run = 0;
    let j = i;
    for (; j < fields.length; j++) {
      const f = fields[j] as FieldDef;
      if (f.length === 4) break;
      const s = fixedSize(f[1], f.length === 3 ? f[2] : undefined);
      if (s === null) break;
      run += s;
    }
    if (j > i) {
      lines.push(`if (o + ${run} > end) throw h.short(${JSON.stringify(owner)}, ${run}, o);`);
      let k = 0;
      for (; i < j; i++) {
        const f = fields[i] as FieldDef;
        const len = f.length === 3 ? f[2] : undefined;
        const fsel = pick(sel, f[0]);
        if (fsel !== undefined || counts.has(f[0]))
          lines.push(`const v${i} = ${fixedExpr(f[1], len, k, fsel ?? true)};`);
        if (fsel !== undefined) values.push(`${JSON.stringify(f[0])}: v${i}`);
        k += fixedSize(f[1], len) as number;
      }
      if (k > 0) lines.push(`o += ${k};`);
      continue;
    }
    const f = fields[i] as FieldDef;
    const [name, type] = f;
    const what = JSON.stringify(`${owner}.${name}`);
    const fsel = pick(sel, name);
    const wanted = fsel !== undefined;
    // A lone `string` (no length) does not occur in .api files; read as string[], as compile.ts does.
    if (f.length === 4 || (f.length === 3 && f[2] === 0) || (f.length === 2 && type === 'string')) {
      if (f.length !== 4 && type === 'string') {
        lines.push(
          `if (o + 4 > end) throw h.short(${JSON.stringify('string[] length')}, 4, o);`,
          `const n${i} = b.readUInt32BE(o);`,
          `if (o + 4 + n${i} > end) throw h.short('string[]', 4 + n${i}, o);`,
          wanted ? `const v${i} = b.toString('utf8', o + 4, o + 4 + n${i});` : '',
          `o += 4 + n${i};`,
        );
      } else {
        const elSize = type === 'u8' ? 1 : fixedSize(type);
        let count: string;
        if (f.length === 4) {
          const countIndex = fields.findIndex((x) => x[0] === f[3]);
          count = `v${countIndex}`;
        } else {
          // A trailing array without a count takes the rest of the message.
          count = `Math.floor((end - o) / ${elSize ?? 1})`;
        }
        lines.push(`const n${i} = ${count};`);
        if (type === 'u8') {
          lines.push(
            `if (o + n${i} > end) throw h.short(${what}, n${i}, o);`,
            wanted ? `const v${i} = h.bytes(b, o, o + n${i});` : '',
            `o += n${i};`,
          );
        } else if (elSize !== null) {
          lines.push(`if (o + ${elSize} * n${i} > end) throw h.short(${what}, ${elSize} * n${i}, o);`);
          if (wanted)
            lines.push(
              `const v${i} = new Array(n${i});`,
              `for (let i = 0; i < n${i}; i++, o += ${elSize}) v${i}[i] = ${fixedExpr(type, undefined, 0, fsel)};`,
            );
          else lines.push(`o += ${elSize} * n${i};`);
        } else {
          // Variable elements: built even when not wanted, to find where each ends.
          const sub = variableStructSub(type, fsel ?? true);
          lines.push(
            `const v${i} = new Array(n${i});`,
            `for (let i = 0; i < n${i}; i++) { v${i}[i] = h.sub[${sub}](b, o, end); o = c.off; }`,
          );
        }
      }
      if (wanted) values.push(`${JSON.stringify(name)}: v${i}`);
      i++;
      continue;
    }
    // A variable-size struct (or alias of one) in place.
    const sub = variableStructSub(type, fsel ?? true);
    lines.push(`const v${i} = h.sub[${sub}](b, o, end);`, 'o = c.off;');
    if (wanted) values.push(`${JSON.stringify(name)}: v${i}`);
    i++;
  }
  lines.push('c.off = o;', `return { ${values.join(', ')} };`);
  return lines.join('\n');
}

/** Shared cursor for the end offset of nested variable structs: decoding is synchronous. */
const c = { off: 0 };

function variableStructSub(type: TypeRef, sel: FieldSelection = true): number {
  let t = type;
  while (typeof t !== 'string' && t.kind === 'alias' && t.length === undefined && t.format === undefined)
    t = t.type;
  if (typeof t === 'string' || t.kind !== 'struct')
    throw new Error(`codec: no straight-line decoder for a variable ${typeof t === 'string' ? t : t.name}`);
  // A part of it: compiled for this selection alone (selections are compiled once, by their user).
  if (sel !== true) return registerSub(compileBody(t.name, t.fields, sel));
  let index = structDecoders.get(t);
  if (index === undefined) {
    index = registerSub(() => undefined); // reserved first: a struct may contain itself indirectly
    structDecoders.set(t, index);
    helpers.sub[index] = compileBody(t.name, t.fields);
  }
  return index;
}

function compileBody(
  owner: string,
  fields: readonly FieldDef[],
  sel: FieldSelection = true,
): (b: Buffer, off: number, end: number) => unknown {
  // `c` is the shared cursor: a nested variable decoder leaves its end offset in c.off.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- source generated from definitions
  const make = new Function(
    'h',
    'c',
    `return function (b, o0, end) {\nlet o = o0;\n${fieldsBody(owner, fields, sel)}\n};`,
  ) as (h: Helpers, cur: { off: number }) => (b: Buffer, off: number, end: number) => unknown;
  return make(helpers, c);
}

/** Compiled bodies by field list, so that a message's two decoder shapes share one function. */
const messageBodies = new WeakMap<readonly FieldDef[], (b: Buffer, off: number, end: number) => unknown>();

function messageBody(
  owner: string,
  fields: readonly FieldDef[],
): (b: Buffer, off: number, end: number) => unknown {
  let body = messageBodies.get(fields);
  if (body === undefined) messageBodies.set(fields, (body = compileBody(owner, fields)));
  return body;
}

/** A decoder for a message's fields after its u16 id: `(payload) => message`. */
export function compileMessageDecoder(
  owner: string,
  fields: readonly FieldDef[],
): (payload: Buffer) => Record<string, unknown> {
  const body = messageBody(owner, fields);
  return (payload) => body(payload, 2, payload.length) as Record<string, unknown>;
}

/**
 * The same decoder for a payload in place, `buf[start, end)` (a frame inside the socket's chunk):
 * no Buffer per frame. Error messages give offsets in `buf`; decode the payload alone for the
 * payload-relative ones.
 */
export function compileMessageDecoderAt(
  owner: string,
  fields: readonly FieldDef[],
): (buf: Buffer, start: number, end: number) => Record<string, unknown> {
  const body = messageBody(owner, fields);
  return (buf, start, end) => body(buf, start + 2, end) as Record<string, unknown>;
}

/**
 * A decoder building only the parts `sel` selects of a message at `buf[start, end)`: for large
 * dumps whose caller reads a few fields. Same bounds checks as the whole decoder; error offsets
 * are in `buf`.
 */
export function compileSelectingDecoderAt(
  owner: string,
  fields: readonly FieldDef[],
  sel: FieldSelection,
): (buf: Buffer, start: number, end: number) => Record<string, unknown> {
  const body = compileBody(owner, fields, sel);
  return (buf, start, end) => body(buf, start + 2, end) as Record<string, unknown>;
}

/**
 * A decoder like compileSelectingDecoderAt's that builds its value once and overwrites it with
 * each message: it returns the same object every time, valid until the next call. For dumps of
 * 100k entries read into columns by a callback that keeps nothing of the object: no object per
 * entry (4 for a steering entry's prefix) for the garbage collector. Fixed-size messages only
 * (what such dumps are); the values are the selecting decoder's.
 */
export function compileReusingDecoderAt(
  owner: string,
  fields: readonly FieldDef[],
  sel: FieldSelection,
): (buf: Buffer, start: number, end: number) => Record<string, unknown> {
  const size = fieldsSize(fields);
  if (size === null) throw new Error(`codec: ${owner} has variable parts: no reused value for it`);
  const lines: string[] = [];
  // The whole message: each field in its place (a struct field selected whole is built anew).
  const top: FieldSelection =
    sel === true ? Object.fromEntries(fields.map((f) => [f[0], true as const])) : sel;
  const shape = reusedShape({ kind: 'struct', name: owner, fields }, 0, top, 't', lines, new Map());
  const body =
    `if (o + ${size} > end) throw h.short(${JSON.stringify(owner)}, ${size}, o);\n` + lines.join('\n');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- source generated from definitions
  const make = new Function(
    'h',
    `const t = ${shape};\nreturn function (b, o, end) {\n${body}\nreturn t;\n};`,
  ) as (h: Helpers) => (b: Buffer, off: number, end: number) => Record<string, unknown>;
  const decode = make(helpers);
  return (buf, start, end) => decode(buf, start + 2, end);
}

/**
 * The reused value's initial literal for (the selected part of) a fixed-size value at `o + k`,
 * and, in `lines`, the statements that overwrite it at `path`. Structs and unions are kept and
 * filled field by field; anything else is read as the selecting decoder reads it.
 */
function reusedShape(
  type: TypeRef,
  k: number,
  sel: FieldSelection,
  path: string,
  lines: string[],
  siblings: ReadonlyMap<string, string>,
): string {
  const composite =
    typeof type !== 'string' && (type.kind === 'struct' || type.kind === 'union') && typeof sel === 'object';
  if (!composite || isArmCondition(sel)) {
    lines.push(`${path} = ${fixedExpr(type, undefined, k, sel, siblings)};`);
    return 'undefined';
  }
  const parts: string[] = [];
  if (type.kind === 'struct') {
    const inner = new Map<string, string>();
    let off = k;
    for (const f of type.fields) {
      const len = f.length === 3 ? f[2] : undefined;
      if (len === undefined && isScalar(f[1])) inner.set(f[0], fixedExpr(f[1], undefined, off));
      off += fixedSize(f[1], len) as number;
    }
    off = k;
    for (const f of type.fields) {
      const len = f.length === 3 ? f[2] : undefined;
      const fsel = pick(sel, f[0]);
      const at = `${path}[${JSON.stringify(f[0])}]`;
      if (fsel !== undefined) {
        if (len !== undefined) lines.push(`${at} = ${fixedExpr(f[1], len, off, fsel)};`);
        parts.push(
          `${JSON.stringify(f[0])}: ${len !== undefined ? 'undefined' : reusedShape(f[1], off, fsel, at, lines, inner)}`,
        );
      }
      off += fixedSize(f[1], len) as number;
    }
  } else {
    for (const a of type.arms) {
      const asel = pick(sel, a[0]);
      if (asel === undefined) continue;
      const len = a.length === 3 ? a[2] : undefined;
      const at = `${path}[${JSON.stringify(a[0])}]`;
      if (isArmCondition(asel)) {
        const sibling = siblings.get(asel.when);
        if (sibling === undefined)
          throw new Error(`codec: ${type.name}.${a[0]}: no field ${asel.when} beside it to test`);
        lines.push(
          `${at} = ${sibling} === ${Number(asel.is)} ? ${fixedExpr(a[1], len, k, asel.select)} : undefined;`,
        );
        parts.push(`${JSON.stringify(a[0])}: undefined`);
      } else if (len !== undefined) {
        lines.push(`${at} = ${fixedExpr(a[1], len, k, asel)};`);
        parts.push(`${JSON.stringify(a[0])}: undefined`);
      } else {
        parts.push(`${JSON.stringify(a[0])}: ${reusedShape(a[1], k, asel, at, lines, siblings)}`);
      }
    }
  }
  return `{ ${parts.join(', ')} }`;
}
