/**
 * Collects a config's problems while it is checked: the structural ones from the schema
 * (structure-errors.ts) and the check pass's own, so that every problem is reported at once.
 */
import type { Static, TSchema, TypeCheck } from './typebox.js';
import { ip4Network, isIp4, isIp6, canonicalIp6, type Ip4Prefix, type Ip6Prefix } from '../net/ip.js';
import { hostBitsProblem } from '../net/network-prefix.js';
import type { ConfigProblem } from './config-error.js';
import {
  FORMATS,
  NAME_MESSAGE,
  NAME_PATTERN,
  NODE_NAME_MESSAGE,
  NODE_NAME_PATTERN,
  parsedIp4Prefix,
  parsedIp6Prefix,
} from './schema/fields.js';
import { structureProblems } from './structure-errors.js';

type Obj = Record<string, unknown>;

const NAME_RE = new RegExp(NAME_PATTERN);
const NODE_NAME_RE = new RegExp(NODE_NAME_PATTERN);

/** Whether `s` is a name (a VPC's, a port's): Checker.name's rule. */
export function isName(s: string): boolean {
  return NAME_RE.test(s);
}

/** Whether `s` is a Kubernetes node name (node.name, and the agent's --node-name). */
export function isNodeName(s: string): boolean {
  return NODE_NAME_RE.test(s);
}

/**
 * A copy of a string from the parsed file that shares no memory with the file's text. V8 keeps a
 * substring of 13 or more characters as a slice of its source, so one such string kept in the
 * config (a MAC, a socket path, a long name) would keep the whole YAML text (megabytes for a node
 * with 100k routes) alive for as long as the config.
 */
export function detached(s: string): string {
  return s.length < 13 ? s : Buffer.from(s, 'utf8').toString('utf8');
}

/** `p` with an address that shares no memory with the file's text (detached). */
export function detachedPrefix<P extends Ip4Prefix | Ip6Prefix>(p: P): P {
  return p.address.length < 13 ? p : { ...p, address: detached(p.address) };
}

export class Checker {
  readonly problems: ConfigProblem[] = [];

  fail(path: string, message: string): undefined {
    this.problems.push({ path, message });
    return undefined;
  }

  /** `v` as its schema types it, or undefined with every structural problem reported. */
  structure<T extends TSchema>(check: TypeCheck<T>, v: unknown, path: string): Static<T> | undefined {
    if (check.Check(v)) return v;
    for (const p of structureProblems(check.Schema(), check.Errors(v), path)) this.problems.push(p);
    return undefined;
  }

  /** A mapping with only `allowed` fields (fleet records' own envelopes). */
  object(v: unknown, path: string, allowed: readonly string[]): Obj | undefined {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return this.fail(path, 'must be a mapping');
    for (const k of Object.keys(v))
      if (!allowed.includes(k)) this.fail(`${path}.${k}`, `unknown field (allowed: ${allowed.join(', ')})`);
    return v as Obj;
  }

  name(v: unknown, path: string): string | undefined {
    if (typeof v !== 'string' || !isName(v)) return this.fail(path, NAME_MESSAGE);
    return detached(v);
  }

  nodeName(v: unknown, path: string): string | undefined {
    if (typeof v !== 'string' || !isNodeName(v)) return this.fail(path, NODE_NAME_MESSAGE);
    return detached(v);
  }

  int(v: unknown, path: string, min: number, max: number): number | undefined {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      return this.fail(path, `must be an integer from ${min} to ${max}`);
    }
    return v;
  }

  ip4(v: unknown, path: string): string | undefined {
    if (typeof v !== 'string' || !isIp4(v)) return this.fail(path, FORMATS.ip4.message);
    return detached(v);
  }

  ip6(v: unknown, path: string): string | undefined {
    if (typeof v !== 'string' || !isIp6(v)) return this.fail(path, FORMATS.ip6.message);
    return canonicalIp6(v);
  }

  ip4Prefix(v: unknown, path: string, requireNetwork: boolean): Ip4Prefix | undefined {
    const p = typeof v === 'string' ? parsedIp4Prefix(v) : undefined;
    if (!p) return this.fail(path, FORMATS['ip4-prefix'].message);
    if (requireNetwork && ip4Network(p) !== p.address) return this.fail(path, hostBitsProblem(p, 4) ?? '');
    return detachedPrefix(p);
  }

  ip6Prefix(v: unknown, path: string, requireNetwork = false): Ip6Prefix | undefined {
    const p = typeof v === 'string' ? parsedIp6Prefix(v) : undefined;
    if (!p) return this.fail(path, FORMATS['ip6-prefix'].message);
    const hostBits = requireNetwork ? hostBitsProblem(p, 6) : undefined;
    return hostBits === undefined ? p : this.fail(path, hostBits);
  }

  unique<T>(seen: Map<T, string>, value: T | undefined, path: string, what: string): void {
    if (value === undefined) return;
    const first = seen.get(value);
    if (first !== undefined) this.fail(path, `${what} ${String(value)} is already used by ${first}`);
    else seen.set(value, path);
  }
}
