/**
 * Runs a plan: deletes first, then creates and updates (the planner's two phases, in order). Within
 * a phase every op starts as soon as the ops it waits for have replied — a create after the ops on
 * its dependencies, a delete after the deletes of what depends on it — not when a whole dependency
 * level has, so the one VPP connection stays full across the plan (pipelined within a bounded
 * window). A dependency with no op in the phase (already in VPP, unchanged) is no wait at all.
 * Best effort: a failed op is recorded, ops that wait for it are skipped with the reason, and
 * everything else still runs, so one bad object does not hold the rest of the node hostage.
 */
import { typedChannel } from '../util/typed-channel.js';
import type { Descriptor } from './descriptor.js';
import type { KindLookup } from './registry.js';
import type { Op, Plan } from './resource.js';
import { LatencyWindow, type WindowOptions } from './window.js';

export interface OpFailure {
  readonly op: Op;
  readonly error: Error;
}

export interface OpSkip {
  readonly op: Op;
  readonly reason: string;
}

export interface ExecutionResult {
  readonly applied: number;
  readonly failed: readonly OpFailure[];
  readonly skipped: readonly OpSkip[];
}

export interface ExecuteOptions {
  /**
   * Ops in flight at once, fixed. Without it the window is sized from VPP's measured latency and
   * reply rate (window.ts), within `adaptiveWindow`'s bounds.
   */
  readonly window?: number;
  readonly adaptiveWindow?: WindowOptions;
  /** Checked before each op starts: once it returns true (shutdown, lost connection), no op starts. */
  readonly shouldStop?: () => boolean;
  /**
   * Ops not to run in this pass, and why (a resource whose own retry is not due yet:
   * failing-resources.ts). A held op counts as skipped, and what waits for it is skipped too.
   */
  readonly hold?: (op: Op) => string | undefined;
}

/** What `vppnet:plan:op` publishes per finished op. */
export interface OpDiagnostic {
  readonly action: Op['action'];
  readonly kind: string;
  readonly key: string;
  readonly outcome: 'ok' | 'failed';
  readonly durationMs: number;
}

/**
 * An OpDiagnostic whose key is built only if a subscriber reads it: a bulk member's op builds its
 * key on each read (bulk-set.ts), and the agent's metrics, subscribed in every real agent, count
 * ops by action, kind and outcome only; an eager key was 100k key strings per cold start.
 */
class FinishedOp implements OpDiagnostic {
  readonly #op: Op;
  readonly outcome: OpDiagnostic['outcome'];
  readonly durationMs: number;

  constructor(op: Op, outcome: OpDiagnostic['outcome'], durationMs: number) {
    this.#op = op;
    this.outcome = outcome;
    this.durationMs = durationMs;
  }

  get action(): Op['action'] {
    return this.#op.action;
  }

  get kind(): string {
    return this.#op.kind;
  }

  get key(): string {
    return this.#op.key;
  }
}

/** What each finished op publishes (the agent's metrics count them). */
export const OP_CHANNEL = typedChannel<OpDiagnostic>('vppnet:plan:op');
const opChannel = OP_CHANNEL;

export async function execute<C>(
  plan: Plan,
  kinds: KindLookup<C>,
  ctx: C,
  opts: ExecuteOptions = {},
): Promise<ExecutionResult> {
  const run: Run<C> = {
    kinds,
    ctx,
    window: opts.window ?? new LatencyWindow(opts.adaptiveWindow),
    shouldStop: opts.shouldStop,
    hold: opts.hold,
    stopped: false,
    applied: 0,
    failed: [],
    skipped: [],
  };
  // The phases in plan order (deletes, then applies): a phase starts when the one before is done.
  const ops = plan.ops;
  let start = 0;
  while (start < ops.length) {
    const deleting = (ops[start] as Op).action === 'delete';
    let end = start + 1;
    while (end < ops.length && ((ops[end] as Op).action === 'delete') === deleting) end++;
    // A cold start's plan is one phase of 100k ops: run it in place rather than from a copy.
    await runPhase(run, start === 0 && end === ops.length ? ops : ops.slice(start, end), deleting);
    start = end;
  }
  return { applied: run.applied, failed: run.failed, skipped: run.skipped };
}

interface Run<C> {
  readonly kinds: KindLookup<C>;
  readonly ctx: C;
  /** A fixed window, or one sized from measured latency (one for the whole run: VPP is the same). */
  readonly window: number | LatencyWindow;
  readonly shouldStop: (() => boolean) | undefined;
  readonly hold: ((op: Op) => string | undefined) | undefined;
  /** Set once shouldStop said so: nothing starts after. */
  stopped: boolean;
  applied: number;
  readonly failed: OpFailure[];
  readonly skipped: OpSkip[];
}

/**
 * Ops sharing one list of keys they wait for (a bulk kind's members share their group's list):
 * they become ready together, when the last op on those keys has finished.
 */
interface Gate {
  readonly waitsFor: readonly string[];
  /** Keys of `waitsFor` with ops still unfinished. */
  remaining: number;
  readonly ops: number[];
}

const NO_KEYS: readonly string[] = [];

/** One phase: every op waits for the ops on the keys it waits for, and nothing else. */
function runPhase<C>(run: Run<C>, ops: readonly Op[], deleting: boolean): Promise<void> {
  // What each op waits for. A create or update: its dependencies. A delete: the deletes of what
  // depends on it (VPP refuses to delete what is still in use), in plan order.
  let waitsForOf: (op: Op) => readonly string[];
  if (deleting) {
    const dependents = new Map<string, string[]>();
    // Indexed loops over a phase's ops (100k steering ops): for-of makes an iterator result per
    // op in code V8 has not optimized yet, and this runs once a phase.
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i] as Op;
      for (const dep of op.deps ?? op.resource.deps) {
        const list = dependents.get(dep);
        if (list) list.push(op.key);
        else dependents.set(dep, [op.key]);
      }
    }
    waitsForOf = (op) => (op.leaf ? NO_KEYS : (dependents.get(op.key) ?? NO_KEYS));
  } else {
    waitsForOf = (op) => op.deps ?? op.resource.deps;
  }

  // Each distinct list once, and the keys in them. An op's list is asked for again where needed,
  // not held per op: it is the same array each time (a group's, a resource's, a dependents'
  // entry), and an array of 100k of them lived through the whole phase.
  const lists = new Set<readonly string[]>();
  for (let i = 0; i < ops.length; i++) {
    const list = waitsForOf(ops[i] as Op);
    if (list.length) lists.add(list);
  }
  const awaited = new Set<string>();
  for (const list of lists) for (const key of list) awaited.add(key);
  // Unfinished ops per awaited key (a key has one op in a phase, but count to be safe).
  const unfinished = new Map<string, number>();
  // A leaf's key is in no list: no lookup by it, here nor below (100k steering ops).
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i] as Op;
    if (!op.leaf && awaited.has(op.key)) unfinished.set(op.key, (unfinished.get(op.key) ?? 0) + 1);
  }

  // Gates, and which gates each key opens. Ready ops wait in two queues: those others wait for
  // start first, so that VPP answers them early and what waits for them can follow (the SR
  // globals before a thousand policies, a table before its hundred steering entries).
  const gates = new Map<readonly string[], Gate>();
  const gatesOn = new Map<string, Gate[]>();
  const ready: number[] = [];
  const leaves: number[] = [];
  const enqueue = (i: number): void => {
    const op = ops[i] as Op;
    (!op.leaf && unfinished.has(op.key) ? ready : leaves).push(i);
  };
  for (let i = 0; i < ops.length; i++) {
    const list = waitsForOf(ops[i] as Op);
    if (!list.length) {
      enqueue(i);
      continue;
    }
    let gate = gates.get(list);
    if (!gate) {
      gate = { waitsFor: list, remaining: 0, ops: [] };
      gates.set(list, gate);
      for (const key of new Set(list)) {
        if (!unfinished.has(key)) continue;
        gate.remaining++;
        const on = gatesOn.get(key);
        if (on) on.push(gate);
        else gatesOn.set(key, [gate]);
      }
    }
    if (gate.remaining === 0) enqueue(i);
    else gate.ops.push(i);
  }
  // The first ones by how many ops wait for them, most first (stable: plan order otherwise).
  const waiting = (i: number): number => {
    let n = 0;
    for (const gate of gatesOn.get((ops[i] as Op).key) ?? []) n += gate.ops.length;
    return n;
  };
  const weights = new Map(ready.map((i) => [i, waiting(i)]));
  ready.sort((a, b) => (weights.get(b) as number) - (weights.get(a) as number) || a - b);

  /** Keys whose op failed or was skipped (held, or behind another), and which. */
  const broken = new Map<string, 'failed' | 'was skipped'>();
  let head = 0; // next in `ready` to start
  let leafHead = 0; // next in `leaves`
  let inFlight = 0;
  let finished = 0;
  const adaptive = typeof run.window === 'number' ? undefined : run.window;
  const fixedWindow = typeof run.window === 'number' ? run.window : 0;

  return new Promise<void>((resolve, reject) => {
    const finish = (op: Op): void => {
      finished++;
      if (op.leaf) return;
      const left = unfinished.get(op.key);
      if (left === undefined) return;
      if (left > 1) {
        unfinished.set(op.key, left - 1);
        return;
      }
      unfinished.delete(op.key);
      for (const gate of gatesOn.get(op.key) ?? []) {
        if (--gate.remaining > 0) continue;
        const opened = gate.ops;
        for (let k = 0; k < opened.length; k++) enqueue(opened[k] as number);
      }
    };

    const skip = (op: Op, reason: string): void => {
      run.skipped.push({ op, reason });
      broken.set(op.key, 'was skipped');
      finish(op);
    };

    /** Op i has settled; `sent` is when it was sent, for the adaptive window. */
    const done = (i: number, error: Error | undefined, sent: number): void => {
      const op = ops[i] as Op;
      inFlight--;
      if (adaptive) adaptive.replied(sent);
      if (error) {
        run.failed.push({ op, error });
        broken.set(op.key, 'failed');
      } else {
        run.applied++;
      }
      finish(op);
      pump();
    };

    // The handlers of the ops in flight: a pair per slot of the window, reused by the ops that
    // take the slot after. A closure pair per op was ~250 bytes of each of 100k (heap sampling).
    // What an op in flight needs is kept per slot too, not per op of the phase.
    const slotOp: number[] = [];
    const slotStarted: number[] = [];
    const slotSent: number[] = [];
    const slotHandlers: { readonly ok: () => void; readonly fail: (err: unknown) => void }[] = [];
    const freeSlots: number[] = [];
    const newSlot = (): number => {
      const slot = slotHandlers.length;
      const end = (error: Error | undefined): void => {
        const i = slotOp[slot] as number;
        const started = slotStarted[slot] as number;
        const sent = slotSent[slot] as number;
        freeSlots.push(slot);
        settle(ops[i] as Op, started, error, i, sent, done);
      };
      slotHandlers.push({ ok: () => end(undefined), fail: (err: unknown) => end(err as Error) });
      slotOp.push(0);
      slotStarted.push(0);
      slotSent.push(0);
      return slot;
    };
    /** Starts op i; `done` follows when it settles (at once when it throws before that). */
    const start = (i: number, op: Op, d: Descriptor<unknown, C>): void => {
      const started = opChannel.hasSubscribers ? performance.now() : 0;
      const sent = adaptive ? adaptive.sent() : 0;
      let running: Promise<unknown>;
      try {
        running = Promise.resolve(startOp(run.ctx, d, op));
      } catch (err) {
        settle(op, started, err as Error, i, sent, done);
        return;
      }
      const slot = freeSlots.pop() ?? newSlot();
      slotOp[slot] = i;
      slotStarted[slot] = started;
      slotSent[slot] = sent;
      const handlers = slotHandlers[slot] as (typeof slotHandlers)[number];
      running.then(handlers.ok, handlers.fail);
    };

    let pumping = false;
    let failedHard = false;
    const pump = (): void => {
      // An op that finishes synchronously calls back in here: the loop below carries on instead.
      if (pumping || failedHard) return;
      pumping = true;
      try {
        fill();
      } catch (err) {
        // An unknown kind, or shouldStop threw: the whole run fails, as a plan error.
        failedHard = true;
        run.stopped = true;
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      } finally {
        pumping = false;
      }
      if (inFlight > 0) return;
      if (finished < ops.length) {
        // Only ops waiting for ones that never ran remain: after the stop, or a cycle among them.
        for (const gate of gates.values()) {
          if (gate.remaining === 0) continue;
          for (const i of gate.ops)
            run.skipped.push({ op: ops[i] as Op, reason: run.stopped ? 'stopped' : 'dependency cycle' });
        }
      }
      resolve();
    };

    const fill = (): void => {
      const window = adaptive ? adaptive.size : fixedWindow;
      while (inFlight < window && (head < ready.length || leafHead < leaves.length)) {
        if (!run.stopped && run.shouldStop?.()) run.stopped = true;
        const i = (head < ready.length ? ready[head++] : leaves[leafHead++]) as number;
        const op = ops[i] as Op;
        if (run.stopped) {
          run.skipped.push({ op, reason: 'stopped' });
          continue;
        }
        // Everything it waited for has finished; skip it when one of those did not succeed.
        if (broken.size) {
          const list = waitsForOf(op);
          const blocker = list.find((k) => broken.has(k));
          if (blocker !== undefined) {
            const how = broken.get(blocker) as string;
            skip(op, deleting ? `kept: deleting ${blocker} ${how}` : `waiting for ${blocker}, which ${how}`);
            continue;
          }
        }
        const held = run.hold?.(op);
        if (held !== undefined) {
          skip(op, held);
          continue;
        }
        const d = run.kinds.get(op.kind);
        if (!d) throw new Error(`no descriptor for kind ${op.kind}`);
        inFlight++;
        start(i, op, d);
      }
    };
    pump();
  });
}

/**
 * Sends one op: its own run, else the descriptor's create, delete or update. Not an async
 * function (runPhase's `start` waits on what it returns): the async function's promise, await
 * and suspended frame were ~470 bytes of each of a from-empty pass's 100k ops.
 */
function startOp<C>(ctx: C, d: Descriptor<unknown, C>, op: Op): Promise<unknown> {
  if (op.run) return op.run(ctx);
  if (op.action === 'create') return d.create(ctx, op.resource);
  if (op.action === 'delete') return d.delete(ctx, op.resource);
  if (d.update && op.previous) return d.update(ctx, op.resource, op.previous);
  // An update that cannot run changed nothing: counting it as applied would hide it.
  throw new Error(
    `${op.key}: update without ${d.update ? 'the value it replaces' : `an update for kind ${op.kind}`}`,
  );
}

function settle(
  op: Op,
  started: number,
  error: Error | undefined,
  index: number,
  sent: number,
  done: (index: number, error: Error | undefined, sent: number) => void,
): void {
  if (opChannel.hasSubscribers) {
    opChannel.publish(new FinishedOp(op, error ? 'failed' : 'ok', started ? performance.now() - started : 0));
  }
  done(index, error, sent);
}
