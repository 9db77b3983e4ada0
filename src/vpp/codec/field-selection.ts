/**
 * What part of a decoded value to build: the selection the straight-line decoders (decoder.ts,
 * reusing-decoder.ts) compile, untyped. The typed form, derived from a message's definition, is
 * `Selection` in selection.ts.
 */
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

export function isArmCondition(sel: FieldSelection | undefined): sel is ArmCondition {
  return typeof sel === 'object' && typeof sel.when === 'string' && 'select' in sel;
}

/** The selection for field `name` of a value selected by `sel`; undefined when not wanted. */
export function pick(sel: FieldSelection, name: string): FieldSelection | undefined {
  if (sel === true) return true;
  if (typeof sel === 'string')
    throw new Error(`codec: form ${sel} selected for a value with fields (${name})`);
  if (isArmCondition(sel)) throw new Error(`codec: a condition selected for a value with fields (${name})`);
  return sel[name];
}
