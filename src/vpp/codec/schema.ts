/**
 * The shape of a VPP API definition as data, and the TypeScript value types derived from it.
 *
 * Every message and type is written down once (by the generator, from VPP's .api.json) as a
 * `const` object of the shapes below. The codec interprets those objects at run time; the
 * types in this file interpret the very same objects at compile time, so a message's TypeScript
 * type can never drift from its wire layout.
 */

/** Scalar wire types. Integers are big-endian on the wire; f64 is in host (little-endian) order. */
export type Primitive =
  'u8' | 'i8' | 'u16' | 'i16' | 'u32' | 'i32' | 'u64' | 'i64' | 'f64' | 'bool' | 'string';

export type IntegerPrimitive = 'u8' | 'i8' | 'u16' | 'i16' | 'u32' | 'i32';

/** Aliases that the codec shows as text because the bytes have one canonical spelling. */
export type TextFormat = 'ip4' | 'ip6' | 'mac';

export interface EnumDef {
  readonly kind: 'enum' | 'enumflag';
  readonly name: string;
  readonly width: IntegerPrimitive;
  readonly values: Readonly<Record<string, number>>;
}

export interface StructDef {
  readonly kind: 'struct';
  readonly name: string;
  readonly fields: readonly FieldDef[];
  /** `[default=…]` values from the .api file, applied when a caller leaves a field out. */
  readonly defaults?: Readonly<Record<string, number | boolean | string>>;
}

export interface UnionDef {
  readonly kind: 'union';
  readonly name: string;
  readonly arms: readonly FieldDef[];
}

export interface AliasDef {
  readonly kind: 'alias';
  readonly name: string;
  readonly type: TypeRef;
  /** Present when the alias is a fixed array (e.g. ip4_address = u8[4]). */
  readonly length?: number;
  readonly format?: TextFormat;
}

export type TypeRef = Primitive | EnumDef | StructDef | UnionDef | AliasDef;

/**
 * A field: `[name, type]`, `[name, type, N]` (fixed array / string[N]),
 * `[name, type, 0]` (string[] or trailing variable array without a count), or
 * `[name, type, 0, countField]` (variable array sized by an earlier field).
 */
export type FieldDef =
  | readonly [name: string, type: TypeRef]
  | readonly [name: string, type: TypeRef, length: number]
  | readonly [name: string, type: TypeRef, length: 0, countField: string];

export interface MessageDef {
  readonly kind: 'message';
  readonly name: string;
  /** CRC as VPP prints it in `name_crc`, 8 lowercase hex digits without 0x. */
  readonly crc: string;
  /** Fields after `_vl_msg_id`, header fields (`client_index`, `context`) included. */
  readonly fields: readonly FieldDef[];
  readonly defaults?: Readonly<Record<string, number | boolean | string>>;
  /** From the .api service block: the reply of a request, or the details of a dump. */
  readonly reply?: MessageDef;
  readonly stream?: MessageDef;
  readonly events?: readonly MessageDef[];
  /** `in_progress` or `deprecated` in the .api file. */
  readonly status?: 'in_progress' | 'deprecated';
}

// ---------------------------------------------------------------------------------------------
// Compile-time interpretation of the definitions.

type ScalarValue<P extends Primitive> = P extends 'u64' | 'i64'
  ? bigint
  : P extends 'bool'
    ? boolean
    : P extends 'string'
      ? string
      : number;

type AliasValue<A extends AliasDef> = A extends { readonly format: TextFormat }
  ? string
  : A extends { readonly length: number }
    ? A['type'] extends 'u8'
      ? Uint8Array
      : readonly ValueOf<A['type']>[]
    : ValueOf<A['type']>;

/** The decoded value of a type. */
export type ValueOf<T> = T extends Primitive
  ? ScalarValue<T>
  : T extends EnumDef
    ? number
    : T extends AliasDef
      ? AliasValue<T>
      : T extends StructDef
        ? StructValue<T['fields']>
        : T extends UnionDef
          ? UnionValue<T['arms']>
          : never;

type FieldValue<F> = F extends readonly [string, infer T, number, ...unknown[]]
  ? T extends 'u8'
    ? Uint8Array
    : T extends 'string'
      ? string
      : readonly ValueOf<T>[]
  : F extends readonly [string, infer T]
    ? ValueOf<T>
    : never;

type StructValue<Fs extends readonly FieldDef[]> = {
  readonly [F in Fs[number] as F[0]]: FieldValue<F>;
};

type UnionValue<Arms extends readonly FieldDef[]> = {
  readonly [F in Arms[number] as F[0]]: FieldValue<F>;
};

/** What a caller may pass: every field optional (absent = .api default, else zero), recursively. */
export type InputOf<T> = T extends Primitive
  ? ScalarValue<T>
  : T extends EnumDef
    ? number
    : T extends AliasDef
      ? AliasInput<T>
      : T extends StructDef
        ? StructInput<T['fields']>
        : T extends UnionDef
          ? StructInput<T['arms']>
          : never;

/**
 * An address may also be passed as its bytes (network order, the alias's width), and an IPv4
 * address as its 32-bit number: a caller holding addresses as numbers (100k steering entries)
 * encodes them without formatting text for the codec to parse again.
 */
type AliasInput<A extends AliasDef> = A extends { readonly format: 'ip4' }
  ? string | number | Uint8Array
  : A extends { readonly format: TextFormat }
    ? string | Uint8Array
    : A extends { readonly length: number }
      ? A['type'] extends 'u8'
        ? Uint8Array
        : readonly InputOf<A['type']>[]
      : InputOf<A['type']>;

type FieldInput<F> = F extends readonly [string, infer T, number, ...unknown[]]
  ? T extends 'u8'
    ? Uint8Array
    : T extends 'string'
      ? string
      : readonly InputOf<T>[]
  : F extends readonly [string, infer T]
    ? InputOf<T>
    : never;

/** Count fields are filled in by the codec from their array's length. */
type CountFields<Fs extends readonly FieldDef[]> = Fs[number] extends infer F
  ? F extends readonly [string, TypeRef, 0, infer C extends string]
    ? C
    : never
  : never;

type StructInput<Fs extends readonly FieldDef[]> = {
  readonly [F in Fs[number] as F[0] extends CountFields<Fs> ? never : F[0]]?: FieldInput<F>;
};

/** A decoded message: every field present. */
export type Message<M extends MessageDef> = MessageDef extends M
  ? Readonly<Record<string, unknown>> // not a concrete definition: nothing to derive
  : StructValue<M['fields']>;

/**
 * What a caller passes to send a message: count fields excluded, all else optional. `context`
 * and `client_index` of requests are filled in by the client core (MessageHeader); a server
 * (the simulator) sets them as fields where they are payload, as in control_ping_reply.
 */
export type MessageInput<M extends MessageDef> = MessageDef extends M
  ? Readonly<Record<string, unknown>>
  : StructInput<M['fields']>;

/** The reply type of a request definition. */
export type ReplyOf<M extends MessageDef> = M['reply'] extends MessageDef ? Message<M['reply']> : never;

/** The details type of a dump definition. */
export type DetailsOf<M extends MessageDef> = M['stream'] extends MessageDef ? Message<M['stream']> : never;

/** `name_crc`, the key VPP's message table uses. */
export function nameCrc(def: MessageDef): string {
  return `${def.name}_${def.crc}`;
}
