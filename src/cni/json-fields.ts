/**
 * Small helpers for validating JSON that arrives from outside (stdin, delegated plugins, the agent):
 * every problem is recorded with the path of the field, so one error can name all bad fields at once.
 */
import { CniError, CniErrorCode } from './errors.js';

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Collects "field: problem" lines; the caller decides the error code once all fields are seen. */
export class FieldProblems {
  readonly #lines: string[] = [];

  add(field: string, problem: string): void {
    this.#lines.push(`${field}: ${problem}`);
  }

  get lines(): readonly string[] {
    return this.#lines;
  }

  get isEmpty(): boolean {
    return this.#lines.length === 0;
  }
}

export function optionalString(
  obj: JsonRecord,
  key: string,
  path: string,
  problems: FieldProblems,
): string | undefined {
  const value = obj[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    problems.add(`${path}${key}`, `must be a string, got ${describe(value)}`);
    return undefined;
  }
  return value;
}

export function optionalStringList(
  obj: JsonRecord,
  key: string,
  path: string,
  problems: FieldProblems,
): string[] | undefined {
  const value = obj[key];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((item): item is string => typeof item === 'string')) {
    problems.add(`${path}${key}`, `must be a list of strings, got ${describe(value)}`);
    return undefined;
  }
  return value;
}

export function optionalInteger(
  obj: JsonRecord,
  key: string,
  path: string,
  problems: FieldProblems,
  range?: { min: number; max: number },
): number | undefined {
  const value = obj[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    problems.add(`${path}${key}`, `must be an integer, got ${describe(value)}`);
    return undefined;
  }
  if (range && (value < range.min || value > range.max)) {
    problems.add(`${path}${key}`, `must be between ${range.min} and ${range.max}, got ${value}`);
    return undefined;
  }
  return value;
}

/** A short description of a bad value for error messages (never the whole value: it may be large). */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return `${typeof value} ${value}`;
  }
  if (value === undefined) return 'nothing';
  return typeof value === 'object' ? 'an object' : typeof value;
}

/** The network config on stdin as a JSON object, or CniError 6 (decoding failure) saying why not. */
export function decodeNetworkConfigObject(stdinData: string): JsonRecord {
  let decoded: unknown;
  try {
    decoded = JSON.parse(stdinData);
  } catch (err) {
    throw new CniError(
      CniErrorCode.DECODING_FAILURE,
      'network config on stdin is not JSON',
      (err as Error).message,
    );
  }
  if (!isRecord(decoded)) {
    throw new CniError(
      CniErrorCode.DECODING_FAILURE,
      'network config on stdin is not a JSON object',
      describe(decoded),
    );
  }
  return decoded;
}
