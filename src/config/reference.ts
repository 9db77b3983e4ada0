/**
 * The configuration reference (README "Configuration reference", `vppnet config-reference`),
 * generated from the schema: one row per field, depth first, with its type, whether it is required
 * or its default, and its description.
 */
import { KindGuard, type TSchema } from './typebox.js';
import { ConfigSchema } from './schema.js';
import { annotations, FORMATS } from './schema/fields.js';

export interface FieldDoc {
  /** Dotted path; `[]` marks list items, e.g. `vpcs[].subnets`. */
  readonly path: string;
  readonly type: string;
  readonly required: boolean;
  readonly default?: string;
  readonly description: string;
}

/** Every field of the config, parents before their fields. */
export const CONFIG_FIELDS: readonly FieldDoc[] = childrenOf(ConfigSchema, '');

function childrenOf(schema: TSchema, path: string): FieldDoc[] {
  const prefix = path === '' ? '' : `${path}.`;
  if (KindGuard.IsArray(schema)) return childrenOf(schema.items, `${path}[]`);
  if (KindGuard.IsUnion(schema)) {
    // A discriminated union (ports[].attach): its `type`, then each variant's fields once; none
    // is required of the union as a whole.
    const seen = new Map<string, TSchema>();
    for (const variant of schema.anyOf)
      if (KindGuard.IsObject(variant))
        for (const [k, field] of Object.entries(variant.properties)) if (!seen.has(k)) seen.set(k, field);
    const types = schema.anyOf.flatMap((v) =>
      KindGuard.IsObject(v) && KindGuard.IsLiteral(v.properties.type)
        ? [String(v.properties.type.const)]
        : [],
    );
    return [...seen].flatMap(([k, field]) =>
      k === 'type'
        ? [{ path: `${prefix}type`, type: types.join(' | '), required: true, description: 'See attach.' }]
        : fieldRows(field, `${prefix}${k}`, false),
    );
  }
  if (!KindGuard.IsObject(schema)) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).flatMap(([k, field]) =>
    fieldRows(field, `${prefix}${k}`, required.has(k)),
  );
}

function fieldRows(schema: TSchema, path: string, required: boolean): FieldDoc[] {
  const a = annotations(schema);
  const dflt = a.defaultText ?? (a.default === undefined ? undefined : defaultText(a.default, a.format));
  const row: FieldDoc = {
    path,
    type: a.docType ?? typeOf(schema),
    required,
    ...(dflt !== undefined && { default: dflt }),
    description: a.description ?? '',
  };
  return [row, ...childrenOf(schema, path)];
}

function typeOf(schema: TSchema): string {
  const a = annotations(schema);
  if (a.format !== undefined && a.format in FORMATS) return FORMATS[a.format as keyof typeof FORMATS].docType;
  if (KindGuard.IsInteger(schema))
    return a.minimum !== undefined && a.maximum !== undefined
      ? `integer ${a.minimum}-${a.maximum}`
      : 'integer';
  if (KindGuard.IsObject(schema) || KindGuard.IsUnion(schema)) return 'mapping';
  if (KindGuard.IsArray(schema)) return 'list';
  if (KindGuard.IsBoolean(schema)) return 'boolean';
  return 'string';
}

/** Modes are quoted as they must be written (YAML reads 0660 unquoted as a decimal number). */
function defaultText(value: unknown, format: string | undefined): string {
  if (format === 'octal-mode') return `'${String(value)}'`;
  return Array.isArray(value) ? JSON.stringify(value) : String(value);
}

/** The reference as Markdown (README "Configuration reference"). */
export function configReferenceMarkdown(): string {
  const rows = CONFIG_FIELDS.map(
    (f) =>
      `| \`${f.path}\` | ${f.type} | ${f.required ? 'yes' : f.default !== undefined ? `no (default: ${f.default})` : 'no'} | ${f.description} |`,
  );
  return ['| field | type | required | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
