/**
 * Shared pieces of the agent tests: config files, a fake reconcile function that records what it
 * was asked to do, a logger that keeps what was logged, and waiting helpers.
 */
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentConfig } from '../../config/model.js';
import { emptySnapshot } from '../../hypervisor/snapshot.js';
import type { OpFailure, OpSkip } from '../../reconcile/executor.js';
import type { Op } from '../../reconcile/resource.js';
import type { ReconcileFn } from '../reconcile-passes.js';
import type { AgentLogger } from '../logger.js';
import type { ReconcileOptions } from '../reconciler.js';
import type { ReconcileOutcome } from '../../hypervisor/reconcile.js';

/** A valid config; `hopLimit` makes variants that differ. */
export function configYaml(opts: { readonly hopLimit?: number; readonly nodeName?: string } = {}): string {
  return `node:
  name: ${opts.nodeName ?? 'hv1'}
  underlay:
    interface: memif1/0
    address: 2001:db8::1/64
    gateway: 2001:db8::2
  srv6:
    locator: fc00:1::/48
    hopLimit: ${opts.hopLimit ?? 64}
vpcs:
  - name: vpc-a
    id: 10
    subnets: [10.0.0.0/24]
    gateway: 10.0.0.1
ports: []
`;
}

/** Fails validation with two problems. */
export const INVALID_CONFIG_YAML = `node:
  name: Not_A_Name
vpcs: []
ports: []
`;

export async function makeTempDir(
  prefix = 'vppnet-agent-',
): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Replaces a file the way editors and `kubectl cp` do: write beside it, rename over it. */
export async function replaceFile(path: string, text: string): Promise<void> {
  const temp = `${path}.new`;
  await writeFile(temp, text);
  await rename(temp, path);
}

export interface LogRecord {
  readonly level: 'error' | 'warn' | 'info' | 'debug';
  readonly fields: Readonly<Record<string, unknown>>;
  readonly message: string;
}

export class RecordingLogger implements AgentLogger {
  readonly records: LogRecord[] = [];
  error(fields: object, message: string): void {
    this.#add('error', fields, message);
  }
  warn(fields: object, message: string): void {
    this.#add('warn', fields, message);
  }
  info(fields: object, message: string): void {
    this.#add('info', fields, message);
  }
  debug(fields: object, message: string): void {
    this.#add('debug', fields, message);
  }
  at(level: LogRecord['level']): LogRecord[] {
    return this.records.filter((r) => r.level === level);
  }
  #add(level: LogRecord['level'], fields: object, message: string): void {
    this.records.push({ level, fields: fields as Record<string, unknown>, message });
  }
}

export interface RecordedPass {
  readonly config: AgentConfig;
  readonly opts: ReconcileOptions;
}

/** What the fake reconcile should return: converged by default. */
export interface FakePassResult {
  readonly failed?: readonly OpFailure[];
  /** Ops the pass skipped (held by the agent's per-resource retry, or behind a failure). */
  readonly skipped?: readonly OpSkip[];
  readonly owned?: ReadonlyMap<string, number>;
  /** Thrown instead of returning (a pass that fails as a whole). */
  readonly throws?: Error;
}

/**
 * A reconcile function that records each call. `hold()` makes the next passes wait until
 * `release()`, so tests can act while a pass is running.
 */
export class FakeReconciler {
  readonly passes: RecordedPass[] = [];
  /** Results for the next passes, in order; converged once used up. */
  readonly results: FakePassResult[] = [];
  /** The most passes that ever ran at the same time (the agent must keep this at 1). */
  maxConcurrent = 0;
  #running = 0;
  #gate: Promise<void> | undefined;
  #open: () => void = () => undefined;
  #entered: (() => void)[] = [];

  readonly fn: ReconcileFn = async (config, opts) => {
    this.passes.push({ config, opts });
    this.maxConcurrent = Math.max(this.maxConcurrent, ++this.#running);
    try {
      for (const notify of this.#entered.splice(0)) notify();
      if (this.#gate !== undefined) await this.#gate;
      const result = this.results.shift() ?? {};
      if (result.throws) throw result.throws;
      return fakeOutcome(result);
    } finally {
      this.#running--;
    }
  };

  hold(): void {
    this.#gate = new Promise((resolve) => (this.#open = resolve));
  }

  release(): void {
    this.#gate = undefined;
    this.#open();
  }

  /** Resolves when the next pass has started (entered the reconcile function). */
  nextPassStarted(): Promise<void> {
    return new Promise((resolve) => this.#entered.push(resolve));
  }
}

export function failedOp(key: string, message: string): OpFailure {
  const op: Op = {
    action: 'create',
    kind: 'route',
    key,
    resource: { kind: 'route', key, deps: [], value: {} },
    level: 0,
    reason: 'missing in VPP',
  };
  return { op, error: new Error(message) };
}

function fakeOutcome(result: FakePassResult): ReconcileOutcome {
  const failed = result.failed ?? [];
  const skipped = result.skipped ?? [];
  return {
    plan: {
      ops: [...failed, ...skipped].map((f) => f.op),
      pending: [],
      unchanged: 3,
      unchangedByKind: new Map([['route', 3]]),
    },
    result: { applied: 0, failed, skipped },
    // The agent reads only the pid of the snapshot: a real empty one, with a pid to tell it by.
    snapshot: { ...emptySnapshot(), vppPid: 4242 },
    owned: result.owned ?? new Map([['route', 3]]),
  };
}

/** Resolves with the first event `emitter` emits that satisfies `accept`, or rejects after `ms`. */
export function nextEvent<T>(
  subscribe: (listener: (value: T) => void) => () => void,
  accept: (value: T) => boolean = () => true,
  ms = 3000,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`no matching event within ${ms} ms`));
    }, ms);
    const unsubscribe = subscribe((value) => {
      if (!accept(value)) return;
      clearTimeout(timer);
      unsubscribe();
      resolve(value);
    });
  });
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
