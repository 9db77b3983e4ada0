/**
 * Turns a definition (schema.ts) into encode/decode functions, once per type. The compiled
 * functions are closures over precomputed sizes and field lists: no lookups by name and no
 * per-call interpretation of the definition in the hot path.
 */
import { VppError } from '../errors.js';
import type {
  AliasDef,
  EnumDef,
  FieldDef,
  IntegerPrimitive,
  Primitive,
  TypeRef,
  UnionDef,
} from './schema.js';
import { readIp4, readIp6, readMac, writeIp4, writeIp6, writeMac } from './text-format.js';

/** A read position that advances; one object per decode instead of a tuple per field. */
export interface ReadCursor {
  off: number;
  readonly end: number;
}

export interface TypeCodec {
  /** Bytes on the wire when the type has no variable part, else null. */
  readonly fixedSize: number | null;
  /** The zero value, used for absent input. */
  size(value: unknown): number;
  /** Writes `value` (possibly undefined = zero/default) at `off`, returns the offset after it. */
  write(buf: Buffer, off: number, value: unknown): number;
  read(buf: Buffer, cur: ReadCursor): unknown;
}

const cache = new WeakMap<object, TypeCodec>();
const primitiveCache = new Map<Primitive, TypeCodec>();

export function codecOf(type: TypeRef): TypeCodec {
  if (typeof type === 'string') {
    let c = primitiveCache.get(type);
    if (!c) {
      c = primitiveCodec(type);
      primitiveCache.set(type, c);
    }
    return c;
  }
  let c = cache.get(type);
  if (!c) {
    switch (type.kind) {
      case 'enum':
      case 'enumflag':
        c = enumCodec(type);
        break;
      case 'alias':
        c = aliasCodec(type);
        break;
      case 'struct':
        c = structCodec(type.name, type.fields, type.defaults);
        break;
      case 'union':
        c = unionCodec(type);
        break;
    }
    cache.set(type, c);
  }
  return c;
}

function need(cur: ReadCursor, n: number, what: string): void {
  if (cur.off + n > cur.end) {
    throw new VppError(
      'VPPNET_ERR_DECODE',
      `message too short: ${what} needs ${n} bytes at offset ${cur.off}`,
    );
  }
}

function encodeError(what: string, value: unknown): VppError {
  const shown = typeof value === 'bigint' ? `${value}n` : JSON.stringify(value);
  return new VppError('VPPNET_ERR_ENCODE', `${what}: invalid value ${shown}`);
}

function intCodec(p: IntegerPrimitive): TypeCodec {
  const [size, min, max] = {
    u8: [1, 0, 0xff],
    i8: [1, -0x80, 0x7f],
    u16: [2, 0, 0xffff],
    i16: [2, -0x8000, 0x7fff],
    u32: [4, 0, 0xffffffff],
    i32: [4, -0x80000000, 0x7fffffff],
  }[p] as [number, number, number];
  const check = (v: unknown): number => {
    if (v === undefined) return 0;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw encodeError(p, v);
    return v;
  };
  const base = { fixedSize: size, size: () => size };
  switch (p) {
    case 'u8':
      return {
        ...base,
        write: (b, o, v) => ((b[o] = check(v)), o + 1),
        read: (b, c) => (need(c, 1, p), b[c.off++]),
      };
    case 'i8':
      return {
        ...base,
        write: (b, o, v) => b.writeInt8(check(v), o),
        read: (b, c) => (need(c, 1, p), b.readInt8(c.off++)),
      };
    case 'u16':
      return {
        ...base,
        write: (b, o, v) => b.writeUInt16BE(check(v), o),
        read: (b, c) => (need(c, 2, p), (c.off += 2), b.readUInt16BE(c.off - 2)),
      };
    case 'i16':
      return {
        ...base,
        write: (b, o, v) => b.writeInt16BE(check(v), o),
        read: (b, c) => (need(c, 2, p), (c.off += 2), b.readInt16BE(c.off - 2)),
      };
    case 'u32':
      return {
        ...base,
        write: (b, o, v) => b.writeUInt32BE(check(v), o),
        read: (b, c) => (need(c, 4, p), (c.off += 4), b.readUInt32BE(c.off - 4)),
      };
    case 'i32':
      return {
        ...base,
        write: (b, o, v) => b.writeInt32BE(check(v), o),
        read: (b, c) => (need(c, 4, p), (c.off += 4), b.readInt32BE(c.off - 4)),
      };
  }
}

function primitiveCodec(p: Primitive): TypeCodec {
  switch (p) {
    case 'u64':
    case 'i64': {
      const unsigned = p === 'u64';
      return {
        fixedSize: 8,
        size: () => 8,
        write: (b, o, v) => {
          const x = v === undefined ? 0n : v;
          if (typeof x !== 'bigint') throw encodeError(p, v);
          return unsigned ? b.writeBigUInt64BE(x, o) : b.writeBigInt64BE(x, o);
        },
        read: (b, c) => {
          need(c, 8, p);
          c.off += 8;
          return unsigned ? b.readBigUInt64BE(c.off - 8) : b.readBigInt64BE(c.off - 8);
        },
      };
    }
    case 'f64':
      // Host order, not network order: VPP copies doubles without swapping.
      return {
        fixedSize: 8,
        size: () => 8,
        write: (b, o, v) => {
          const x = v === undefined ? 0 : v;
          if (typeof x !== 'number') throw encodeError(p, v);
          return b.writeDoubleLE(x, o);
        },
        read: (b, c) => (need(c, 8, p), (c.off += 8), b.readDoubleLE(c.off - 8)),
      };
    case 'bool':
      return {
        fixedSize: 1,
        size: () => 1,
        write: (b, o, v) => {
          if (v !== undefined && typeof v !== 'boolean') throw encodeError(p, v);
          b[o] = v ? 1 : 0;
          return o + 1;
        },
        read: (b, c) => (need(c, 1, p), b[c.off++] !== 0),
      };
    case 'string':
      // A lone `string` field without length does not occur in .api files; treat as string[].
      return variableStringCodec();
    default:
      return intCodec(p);
  }
}

/** Enums and enumflags are plain integers of their declared width; unknown values pass through. */
function enumCodec(e: EnumDef): TypeCodec {
  return intCodec(e.width);
}

function textCodec(
  size: number,
  write: (t: string, b: Buffer, o: number) => void,
  read: (b: Buffer, o: number) => string,
  what: string,
): TypeCodec {
  return {
    fixedSize: size,
    size: () => size,
    write: (b, o, v) => {
      if (v === undefined) {
        b.fill(0, o, o + size);
      } else if (typeof v === 'string') {
        write(v, b, o);
      } else if (size === 4 && typeof v === 'number' && v >>> 0 === v) {
        // An IPv4 address as its 32-bit number (10.0.0.1 is 0x0a000001), written in network order.
        b.writeUInt32BE(v, o);
      } else if (v instanceof Uint8Array && v.length === size) {
        b.set(v, o);
      } else {
        throw encodeError(what, v);
      }
      return o + size;
    },
    read: (b, c) => {
      need(c, size, what);
      c.off += size;
      return read(b, c.off - size);
    },
  };
}

function aliasCodec(a: AliasDef): TypeCodec {
  switch (a.format) {
    case 'ip4':
      return textCodec(4, writeIp4, readIp4, a.name);
    case 'ip6':
      return textCodec(16, writeIp6, readIp6, a.name);
    case 'mac':
      return textCodec(6, writeMac, readMac, a.name);
    case undefined:
      break;
  }
  if (a.length !== undefined) return arrayCodec(a.name, a.type, a.length);
  return codecOf(a.type);
}

/** Fixed arrays: u8[N] is a Uint8Array, string[N] a NUL-padded string, anything else an array. */
function arrayCodec(name: string, type: TypeRef, length: number): TypeCodec {
  if (type === 'u8') {
    return {
      fixedSize: length,
      size: () => length,
      write: (b, o, v) => {
        if (v === undefined) {
          b.fill(0, o, o + length);
          return o + length;
        }
        if (!(v instanceof Uint8Array) || v.length > length) throw encodeError(`${name} (u8[${length}])`, v);
        b.set(v, o);
        b.fill(0, o + v.length, o + length);
        return o + length;
      },
      read: (b, c) => {
        need(c, length, name);
        c.off += length;
        // A copy: the frame buffer is reused once the callback returns.
        return Uint8Array.prototype.slice.call(b, c.off - length, c.off);
      },
    };
  }
  if (type === 'string') {
    return {
      fixedSize: length,
      size: () => length,
      write: (b, o, v) => {
        const s = v === undefined ? '' : v;
        if (typeof s !== 'string') throw encodeError(name, v);
        const n = Buffer.byteLength(s);
        // VPP's string[N] is a C string: it must keep one NUL byte.
        if (n >= length) {
          throw new VppError('VPPNET_ERR_ENCODE', `${name}: ${n} bytes does not fit string[${length}]`);
        }
        b.write(s, o, 'utf8');
        b.fill(0, o + n, o + length);
        return o + length;
      },
      read: (b, c) => {
        need(c, length, name);
        const start = c.off;
        c.off += length;
        let nul = b.indexOf(0, start);
        if (nul < 0 || nul > start + length) nul = start + length;
        return b.toString('utf8', start, nul);
      },
    };
  }
  const el = codecOf(type);
  const elSize = el.fixedSize;
  return {
    fixedSize: elSize === null ? null : elSize * length,
    size: (v) => {
      if (elSize !== null) return elSize * length;
      let n = 0;
      const arr = (v ?? []) as readonly unknown[];
      for (let i = 0; i < length; i++) n += el.size(arr[i]);
      return n;
    },
    write: (b, o, v) => {
      const arr = v === undefined ? [] : v;
      if (!Array.isArray(arr) || arr.length > length) throw encodeError(`${name}[${length}]`, v);
      for (let i = 0; i < length; i++) o = el.write(b, o, arr[i]);
      return o;
    },
    read: (b, c) => {
      const out = new Array<unknown>(length);
      for (let i = 0; i < length; i++) out[i] = el.read(b, c);
      return out;
    },
  };
}

function variableStringCodec(): TypeCodec {
  return {
    fixedSize: null,
    size: (v) => 4 + (typeof v === 'string' ? Buffer.byteLength(v) : 0),
    write: (b, o, v) => {
      const s = v === undefined ? '' : v;
      if (typeof s !== 'string') throw encodeError('string[]', v);
      b.writeUInt32BE(Buffer.byteLength(s), o);
      return o + 4 + b.write(s, o + 4, 'utf8');
    },
    read: (b, c) => {
      need(c, 4, 'string[] length');
      const n = b.readUInt32BE(c.off);
      need(c, 4 + n, 'string[]');
      c.off += 4 + n;
      return b.toString('utf8', c.off - n, c.off);
    },
  };
}

/** A variable array `T x[count]`: the count is another field of the same struct. */
function variableArrayCodec(
  name: string,
  type: TypeRef,
): {
  readonly size: (v: unknown) => number;
  readonly write: (b: Buffer, o: number, v: unknown) => number;
  readonly read: (b: Buffer, c: ReadCursor, count: number) => unknown;
  readonly length: (v: unknown) => number;
} {
  if (type === 'u8') {
    return {
      length: (v) => (v === undefined ? 0 : (v as Uint8Array).length),
      size: (v) => (v === undefined ? 0 : (v as Uint8Array).length),
      write: (b, o, v) => {
        if (v === undefined) return o;
        if (!(v instanceof Uint8Array)) throw encodeError(`${name} (u8[])`, v);
        b.set(v, o);
        return o + v.length;
      },
      read: (b, c, count) => {
        need(c, count, name);
        c.off += count;
        return Uint8Array.prototype.slice.call(b, c.off - count, c.off);
      },
    };
  }
  const el = codecOf(type);
  const elSize = el.fixedSize;
  const asArray = (v: unknown): readonly unknown[] => {
    if (v === undefined) return [];
    if (!Array.isArray(v)) throw encodeError(`${name}[]`, v);
    return v;
  };
  return {
    length: (v) => asArray(v).length,
    size: (v) => {
      const arr = asArray(v);
      if (elSize !== null) return elSize * arr.length;
      let n = 0;
      for (const x of arr) n += el.size(x);
      return n;
    },
    write: (b, o, v) => {
      for (const x of asArray(v)) o = el.write(b, o, x);
      return o;
    },
    read: (b, c, count) => {
      if (elSize !== null) need(c, elSize * count, name);
      const out = new Array<unknown>(count);
      for (let i = 0; i < count; i++) out[i] = el.read(b, c);
      return out;
    },
  };
}

interface CompiledField {
  readonly name: string;
  readonly fixedSize: number | null;
  size(value: unknown, obj: Readonly<Record<string, unknown>>): number;
  write(b: Buffer, o: number, value: unknown, obj: Readonly<Record<string, unknown>>): number;
  read(b: Buffer, c: ReadCursor, out: Record<string, unknown>): unknown;
}

/** Compiles a field list; shared by structs and messages. */
export function compileFields(owner: string, fields: readonly FieldDef[]): CompiledField[] {
  // Count fields are written from their array's length, so a caller never keeps them in sync.
  const arrayForCount = new Map<string, string>();
  for (const f of fields) if (f.length === 4) arrayForCount.set(f[3], f[0]);
  const compiled: CompiledField[] = [];
  for (const f of fields) {
    const [name, type] = f;
    const what = `${owner}.${name}`;
    if (f.length === 4) {
      const countField = f[3];
      const va = variableArrayCodec(what, type);
      compiled.push({
        name,
        fixedSize: null,
        size: (v) => va.size(v),
        write: (b, o, v) => va.write(b, o, v),
        read: (b, c, out) => va.read(b, c, out[countField] as number),
      });
      continue;
    }
    if (f.length === 3 && f[2] === 0) {
      // string[] carries its own u32 length; other trailing arrays without a count take the rest.
      if (type === 'string') {
        const s = variableStringCodec();
        compiled.push({
          name,
          fixedSize: null,
          size: (v) => s.size(v),
          write: (b, o, v) => s.write(b, o, v),
          read: (b, c) => s.read(b, c),
        });
      } else {
        const va = variableArrayCodec(what, type);
        const el = codecOf(type).fixedSize ?? 1;
        compiled.push({
          name,
          fixedSize: null,
          size: (v) => va.size(v),
          write: (b, o, v) => va.write(b, o, v),
          read: (b, c) => va.read(b, c, Math.floor((c.end - c.off) / el)),
        });
      }
      continue;
    }
    const codec = f.length === 3 ? arrayCodec(what, type, f[2]) : codecOf(type);
    const arrayName = arrayForCount.get(name);
    if (arrayName !== undefined) {
      const arrayDef = fields.find((x) => x[0] === arrayName) as FieldDef;
      const va = variableArrayCodec(`${owner}.${arrayName}`, arrayDef[1]);
      compiled.push({
        name,
        fixedSize: codec.fixedSize,
        size: () => codec.fixedSize as number,
        write: (b, o, _v, obj) => codec.write(b, o, va.length(obj[arrayName])),
        read: (b, c) => codec.read(b, c),
      });
      continue;
    }
    compiled.push({
      name,
      fixedSize: codec.fixedSize,
      size: (v) => (codec.fixedSize !== null ? codec.fixedSize : codec.size(v)),
      write: (b, o, v) => codec.write(b, o, v),
      read: (b, c) => codec.read(b, c),
    });
  }
  return compiled;
}

/** Total fixed size of a field list, or null if any part is variable. */
export function fixedSizeOf(fields: readonly CompiledField[]): number | null {
  let n = 0;
  for (const f of fields) {
    if (f.fixedSize === null) return null;
    n += f.fixedSize;
  }
  return n;
}

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});

function structCodec(
  name: string,
  fields: readonly FieldDef[],
  defaults: Readonly<Record<string, unknown>> | undefined,
): TypeCodec {
  const compiled = compileFields(name, fields);
  const fixed = fixedSizeOf(compiled);
  const valueOf = (obj: Readonly<Record<string, unknown>>, f: CompiledField): unknown => {
    const v = obj[f.name];
    return v === undefined && defaults ? defaults[f.name] : v;
  };
  const asObject = (v: unknown): Readonly<Record<string, unknown>> => {
    if (v === undefined) return EMPTY;
    if (typeof v !== 'object' || v === null) throw encodeError(name, v);
    return v as Readonly<Record<string, unknown>>;
  };
  return {
    fixedSize: fixed,
    size: (v) => {
      if (fixed !== null) return fixed;
      const obj = asObject(v);
      let n = 0;
      for (const f of compiled) n += f.size(valueOf(obj, f), obj);
      return n;
    },
    write: (b, o, v) => {
      const obj = asObject(v);
      for (const f of compiled) o = f.write(b, o, valueOf(obj, f), obj);
      return o;
    },
    read: (b, c) => {
      const out: Record<string, unknown> = {};
      for (const f of compiled) out[f.name] = f.read(b, c, out);
      return out;
    },
  };
}

/**
 * A union is as wide as its widest arm. Decoding yields every arm read from the same bytes (the
 * codec cannot know which one is meant); encoding writes the widest arm present, which for a
 * decoded value reproduces all bytes.
 */
function unionCodec(u: UnionDef): TypeCodec {
  const arms = u.arms.map((f) => ({
    name: f[0],
    codec: f.length === 3 ? arrayCodec(`${u.name}.${f[0]}`, f[1], f[2]) : codecOf(f[1]),
  }));
  let size = 0;
  for (const a of arms) {
    if (a.codec.fixedSize === null) throw new Error(`union ${u.name}: arm ${a.name} has no fixed size`);
    size = Math.max(size, a.codec.fixedSize);
  }
  const widestFirst = [...arms].sort((a, b) => (b.codec.fixedSize as number) - (a.codec.fixedSize as number));
  return {
    fixedSize: size,
    size: () => size,
    write: (b, o, v) => {
      b.fill(0, o, o + size);
      if (v === undefined) return o + size;
      if (typeof v !== 'object' || v === null) throw encodeError(u.name, v);
      const obj = v as Readonly<Record<string, unknown>>;
      for (const a of widestFirst) {
        if (obj[a.name] !== undefined) {
          a.codec.write(b, o, obj[a.name]);
          break;
        }
      }
      return o + size;
    },
    read: (b, c) => {
      need(c, size, u.name);
      const out: Record<string, unknown> = {};
      for (const a of arms) out[a.name] = a.codec.read(b, { off: c.off, end: c.off + size });
      c.off += size;
      return out;
    },
  };
}
