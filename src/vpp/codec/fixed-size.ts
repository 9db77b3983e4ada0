/**
 * The wire size of a type with no variable part: what lets a straight-line decoder read a run of
 * fixed-size fields at constant offsets after one bounds check.
 */
import type { FieldDef, TypeRef } from './schema.js';

/** The byte size of a type with no variable part, or null. */
export function fixedSize(type: TypeRef, length?: number): number | null {
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

export function fieldsSize(fields: readonly FieldDef[]): number | null {
  let n = 0;
  for (const f of fields) {
    if (f.length === 4) return null;
    const s = fixedSize(f[1], f.length === 3 ? f[2] : undefined);
    if (s === null) return null;
    n += s;
  }
  return n;
}
