/**
 * A decoder that builds its value once and overwrites it with each message, for dumps of 100k
 * entries read into columns: no object per entry for the garbage collector. Its reads are the
 * selecting decoder's (decoder.ts), so the values are the same; only the object is reused.
 */
import { isArmCondition, pick, type FieldSelection } from './field-selection.js';
import { fieldsSize, fixedSize } from './fixed-size.js';
import { fixedExpr, helpers, isScalar, type Helpers } from './fixed-value-expr.js';
import type { FieldDef, TypeRef } from './schema.js';

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
