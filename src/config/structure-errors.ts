/**
 * TypeBox's errors in the config's own words: each problem names the field as the config is
 * written (`ports[3].attach.socket`) and says what is wrong with the message the field's schema
 * carries (schema/fields.ts), the wording these checks had before they came from a schema.
 */
import { KindGuard, ValueErrorType, type TSchema, type ValueError } from './typebox.js';
import { annotations, formatMessage } from './schema/fields.js';
import type { ConfigProblem } from './config-error.js';

/** `base` joined with a TypeBox path ('/attach/socket', '/subnets/0'). */
export function fieldPath(base: string, pointer: string): string {
  let out = base;
  for (const part of pointer.split('/').slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(key)) out += `[${key}]`;
    else out = out === '' || out === '(root)' ? key : `${out}.${key}`;
  }
  return out;
}

/** What is wrong with `value` for `schema`, in the config's words. */
export function messageFor(schema: TSchema, value: unknown): string {
  const a = annotations(schema);
  if (a.errorMessage !== undefined) return a.errorMessage;
  if (a.format !== undefined) return formatMessage(a.format, value) ?? `must be a ${a.format}`;
  if (KindGuard.IsInteger(schema)) {
    if (a.unixId && typeof value === 'string')
      return `must be a number: the agent cannot resolve ${JSON.stringify(value)} (on the host: id -u NAME, getent group NAME)`;
    return `must be an integer from ${a.minimum} to ${a.maximum}`;
  }
  if (KindGuard.IsObject(schema) || KindGuard.IsUnion(schema)) return 'must be a mapping';
  if (KindGuard.IsArray(schema)) return 'must be a list';
  if (KindGuard.IsBoolean(schema)) return 'must be true or false';
  return 'has the wrong type';
}

/**
 * One problem per field (the first TypeBox reports for it), under `base`, in the order the schema
 * lists the fields (TypeBox reports missing fields first): unknown fields, then each field's.
 */
export function structureProblems(
  schema: TSchema,
  errors: Iterable<ValueError>,
  base: string,
): ConfigProblem[] {
  const found: { rank: number[]; problem: ConfigProblem }[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    const path = fieldPath(base, e.path);
    if (seen.has(path)) continue;
    seen.add(path);
    found.push({ rank: rankOf(schema, e.path), problem: { path, message: message(e) } });
  }
  return found.sort((a, b) => compareRanks(a.rank, b.rank)).map((f) => f.problem);
}

/** Where a TypeBox path lies in the schema: per level, the field's place (-1: unknown) or the index. */
function rankOf(schema: TSchema, pointer: string): number[] {
  const rank: number[] = [];
  let at: TSchema | undefined = schema;
  for (const key of pointer.split('/').slice(1)) {
    if (at && KindGuard.IsObject(at)) {
      rank.push(Object.keys(at.properties).indexOf(key));
      at = at.properties[key];
    } else if (at && KindGuard.IsArray(at)) {
      rank.push(Number(key));
      at = at.items;
    } else {
      rank.push(Number.isInteger(Number(key)) ? Number(key) : 0);
      at = undefined;
    }
  }
  return rank;
}

function compareRanks(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++)
    if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  return 0;
}

function message(e: ValueError): string {
  const a = annotations(e.schema);
  switch (e.type) {
    case ValueErrorType.ObjectAdditionalProperties: {
      const allowed = KindGuard.IsObject(e.schema) ? Object.keys(e.schema.properties) : [];
      return `unknown field (allowed: ${allowed.join(', ')})`;
    }
    case ValueErrorType.ObjectRequiredProperty:
      return a.requiredMessage ?? messageFor(e.schema, undefined);
    case ValueErrorType.ArrayMinItems:
      return a.minItemsMessage ?? `must list at least ${String(e.schema.minItems)}`;
    case ValueErrorType.ArrayMaxItems:
      return `must list at most ${String(e.schema.maxItems)} (${String((e.value as unknown[]).length)} listed)`;
    default:
      return messageFor(e.schema, e.value);
  }
}
