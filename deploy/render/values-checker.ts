/**
 * The values' field checker: each check records a problem naming its field and returns a
 * placeholder, so one pass reports every problem at once; and the formats the fields are checked
 * against (Kubernetes names, labels, images). Used by values.ts and values-datastore.ts.
 */
import { parseQuantity } from './quantity.js';
import type { ComputeResources, ValuesProblem } from './values.js';

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** RFC 1123 label: namespaces and most object names. */
export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
/** RFC 1123 subdomain: node names. */
export const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** A label key with an optional DNS-subdomain prefix; values are up to 63 such characters. */
export const LABEL_NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/;
export const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;
export const IFNAME = /^[A-Za-z0-9_.-]{1,15}$/;
export const IMAGE_REPOSITORY = /^[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]+)?(\/[a-z0-9]+([._-]{1,2}[a-z0-9]+)*)*$/;
export const IMAGE_TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
export const TOLERATION_FIELDS = ['key', 'operator', 'value', 'effect', 'tolerationSeconds'];

export class Checker {
  readonly problems: ValuesProblem[] = [];

  fail(path: string, message: string): undefined {
    this.problems.push({ path, message });
    return undefined;
  }

  object(v: unknown, path: string, allowed: readonly string[]): Obj {
    if (!isObj(v)) {
      this.fail(path, 'must be a mapping');
      return {};
    }
    for (const k of Object.keys(v)) {
      if (!allowed.includes(k)) this.fail(`${path}.${k}`, `unknown field (allowed: ${allowed.join(', ')})`);
    }
    return v;
  }

  string(v: unknown, path: string, re?: RegExp, what = 'a non-empty string'): string {
    if (typeof v !== 'string' || v === '' || (re !== undefined && !re.test(v))) {
      this.fail(path, `must be ${what}, got ${JSON.stringify(v) ?? 'nothing'}`);
      return '';
    }
    return v;
  }

  int(v: unknown, path: string, min: number, max: number): number {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      this.fail(path, `must be an integer from ${min} to ${max}`);
      return min;
    }
    return v;
  }

  boolean(v: unknown, path: string): boolean {
    if (typeof v !== 'boolean') {
      this.fail(path, 'must be true or false');
      return false;
    }
    return v;
  }

  oneOf<T extends string>(v: unknown, path: string, allowed: readonly T[]): T {
    const found = allowed.find((a) => a === v);
    if (found === undefined) {
      this.fail(path, `must be one of ${allowed.join(', ')}, got ${JSON.stringify(v) ?? 'nothing'}`);
      return allowed[0] as T;
    }
    return found;
  }

  stringList(v: unknown, path: string, re?: RegExp, what?: string): string[] {
    if (!Array.isArray(v)) {
      this.fail(path, 'must be a list');
      return [];
    }
    return v.map((item, i) => this.string(item, `${path}[${i}]`, re, what));
  }

  absolutePath(v: unknown, path: string): string {
    const s = this.string(v, path);
    if (
      s !== '' &&
      (!s.startsWith('/') || s.split('/').includes('..') || (s.length > 1 && s.endsWith('/')))
    ) {
      this.fail(path, `must be an absolute path without '..' or a trailing '/', got ${JSON.stringify(s)}`);
    }
    return s;
  }

  quantity(v: unknown, path: string, kind: 'cpu' | 'memory'): string {
    const s = typeof v === 'number' ? String(v) : v;
    if (typeof s !== 'string' || parseQuantity(s, kind) === undefined) {
      const example = kind === 'cpu' ? '100m or 1' : '128Mi';
      this.fail(path, `must be a ${kind} quantity such as ${example}, got ${JSON.stringify(v) ?? 'nothing'}`);
      return '0';
    }
    return s;
  }

  resources(v: unknown, path: string): ComputeResources {
    const r = this.object(v, path, ['requests', 'limits']);
    const side = (key: 'requests' | 'limits') => {
      const o = this.object(r[key], `${path}.${key}`, ['cpu', 'memory']);
      return {
        cpu: this.quantity(o.cpu, `${path}.${key}.cpu`, 'cpu'),
        memory: this.quantity(o.memory, `${path}.${key}.memory`, 'memory'),
      };
    };
    const requests = side('requests');
    const limits = side('limits');
    for (const kind of ['cpu', 'memory'] as const) {
      const req = parseQuantity(requests[kind], kind);
      const lim = parseQuantity(limits[kind], kind);
      if (req !== undefined && lim !== undefined && req > lim) {
        this.fail(`${path}.requests.${kind}`, `is more than the limit ${limits[kind]}`);
      }
    }
    return { requests, limits };
  }
}
