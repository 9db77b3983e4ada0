/**
 * Decoding part of a message: a typed selection of its fields, derived from the definition, and
 * the decoder that builds only those. For large dumps whose caller reads a few fields (100k
 * steering entries: the prefix and the BSID), the rest is skipped over on the wire instead of
 * becoming strings and objects the garbage collector then carries.
 */
import { compileSelectingDecoderAt } from './decoder.js';
import type { FieldSelection, LeafForm } from './field-selection.js';
import { compileReusingDecoderAt } from './reusing-decoder.js';
import { decodeMessage } from './message-codec.js';
import type { Message, MessageDef } from './schema.js';

type Leaf = string | number | bigint | boolean | Uint8Array;

/**
 * Which parts of a decoded `T` to build: `true` for all of it; for a struct or union, an object
 * naming the fields (arms) wanted, each again a selection; for an array, the selection of its
 * elements. E.g. `{ prefix: { len: true, address: { un: { ip4: true } } }, bsid: true }`.
 * An address may be asked for in another form (`'u32'`, `'repeat'`, `'bytes'`: LeafForm in
 * field-selection.ts), and a union arm only when a field beside the union has a value (`{ when: 'af',
 * is: 1, select: true }`: ArmCondition); the codec checks both against the definition when it
 * compiles.
 */
export type Selection<T> = true | (T extends string ? LeafForm : never) | PartSelection<T>;
type PartSelection<T> = T extends Leaf
  ? never
  : T extends readonly (infer E)[]
    ? PartSelection<E>
    : { readonly [K in keyof T]?: Selection<T[K]> | Conditional<T[K]> };

/** An arm built only when the field `when` beside its union is `is` (ArmCondition). */
interface Conditional<T> {
  readonly when: string;
  readonly is: number;
  readonly select: Selection<T>;
}

/** What decoding with selection `S` gives of a `T`: the selected fields only, all present. */
export type Selected<T, S> = S extends true
  ? T
  : S extends 'u32'
    ? number
    : S extends 'bytes'
      ? Uint8Array
      : S extends 'repeat'
        ? T
        : S extends { readonly when: string; readonly is: number; readonly select: infer X }
          ? Selected<T, X> | undefined
          : T extends readonly (infer E)[]
            ? readonly Selected<E, S>[]
            : { readonly [K in keyof S & keyof T]-?: Selected<T[K], Exclude<S[K], undefined>> };

export type SelectingDecoder<M extends MessageDef, S> = (
  buf: Buffer,
  start: number,
  end: number,
) => Selected<Message<M>, S>;

type AnyDecoder = (buf: Buffer, start: number, end: number) => unknown;
type DecoderCache = WeakMap<MessageDef, WeakMap<object, AnyDecoder>>;

const compiledSelections: DecoderCache = new WeakMap();

/**
 * The decoder of `def` payloads at `buf[start, end)` building only what `sel` selects; compiled
 * once per (definition, selection object), so keep the selection in a constant. A payload that
 * does not decode throws what decodeMessage of it would.
 */
export function selectingDecoder<M extends MessageDef, S extends Selection<Message<M>>>(
  def: M,
  sel: S,
): SelectingDecoder<M, S> {
  if (sel === true)
    return ((buf: Buffer, start: number, end: number) =>
      decodeMessage(def, buf.subarray(start, end))) as never;
  // A message's selection names fields (the type allows a form only for an address).
  return cachedDecoder(compiledSelections, def, sel as object, () => {
    checkSelection(def.name, def, sel);
    return compileSelectingDecoderAt(def.name, def.fields, sel);
  });
}

/**
 * The decoder of (def, key) from `cache`, compiled by `compile` the first time. A payload the
 * compiled body cannot decode is decoded whole (rare), for decodeMessage's error and offsets.
 */
function cachedDecoder<M extends MessageDef, S>(
  cache: DecoderCache,
  def: M,
  key: object,
  compile: () => AnyDecoder,
): SelectingDecoder<M, S> {
  let byDef = cache.get(def);
  if (byDef === undefined) cache.set(def, (byDef = new WeakMap()));
  let decode = byDef.get(key);
  if (decode === undefined) {
    const body = compile();
    decode = (buf: Buffer, start: number, end: number): unknown => {
      try {
        return body(buf, start, end);
      } catch {
        return decodeMessage(def, buf.subarray(start, end));
      }
    };
    byDef.set(key, decode);
  }
  return decode as SelectingDecoder<M, S>;
}

/** The cache key of the whole message (`true` is no WeakMap key). */
const WHOLE = {};
const reusingDecoders: DecoderCache = new WeakMap();

/**
 * selectingDecoder's decoder, but returning one object, overwritten by each call: read it before
 * the next one and keep nothing of it (not the object, not its parts). For dumps of 100k entries
 * whose callback copies a few fields into columns. Fixed-size messages only; compiled once per
 * (definition, selection object).
 */
export function reusingDecoder<M extends MessageDef, S extends Selection<Message<M>>>(
  def: M,
  sel: S,
): SelectingDecoder<M, S> {
  return cachedDecoder(reusingDecoders, def, sel === true ? WHOLE : (sel as object), () => {
    if (sel !== true) checkSelection(def.name, def, sel);
    return compileReusingDecoderAt(def.name, def.fields, sel);
  });
}

/** A selection naming a field the message does not have is a caller's bug: said at once, by name. */
function checkSelection(owner: string, def: MessageDef, sel: FieldSelection): void {
  const names = new Set(def.fields.map((f) => f[0]));
  for (const name of Object.keys(sel))
    if (!names.has(name)) throw new RangeError(`${owner}: no field ${JSON.stringify(name)} to select`);
}
