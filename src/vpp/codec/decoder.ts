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
import { pick, type FieldSelection } from './field-selection.js';
import { fixedSize } from './fixed-size.js';
import { fixedExpr, helpers, registerSub, type Helpers } from './fixed-value-expr.js';
import type { FieldDef, TypeRef } from './schema.js';

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
