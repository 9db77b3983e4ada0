/**
 * Runs an async task one at a time. Requests made while a run is in progress fold into exactly
 * one follow-up run: a reconcile converges on the latest state, so one more pass after the current
 * one serves every request that arrived meanwhile, however many there were.
 */
import type { Timers } from '../util/timers.js';

export class CoalescingRunner<Trigger, Result> {
  readonly #task: (triggers: ReadonlySet<Trigger>) => Promise<Result>;
  #current: Promise<Result> | undefined;
  /** Triggers of the current run while it has not started yet (it starts a microtask later). */
  #unstartedTriggers: Set<Trigger> | undefined;
  #followUp: FollowUp<Trigger, Result> | undefined;
  #closed = false;

  constructor(task: (triggers: ReadonlySet<Trigger>) => Promise<Result>) {
    this.#task = task;
  }

  /** Whether a run is in progress or queued. */
  get busy(): boolean {
    return this.#current !== undefined;
  }

  /**
   * Asks for a run that starts at or after this call. Resolves with that run's result, or with
   * undefined when the runner closed before the run could start.
   */
  request(trigger: Trigger): Promise<Result | undefined> {
    if (this.#closed) return Promise.resolve(undefined);
    if (this.#current === undefined) return this.#run(new Set([trigger]));
    if (this.#unstartedTriggers !== undefined) {
      this.#unstartedTriggers.add(trigger);
      return this.#current;
    }
    this.#followUp ??= newFollowUp();
    this.#followUp.triggers.add(trigger);
    return this.#followUp.promise;
  }

  /** Resolves once no run is in progress or queued. */
  async whenIdle(): Promise<void> {
    // The follow-up, if any, starts in the settle handler registered before this await's own.
    while (this.#current !== undefined) await this.#current.catch(() => undefined);
  }

  /**
   * For work of lower priority that gives way to runs: undefined when no run is in progress or
   * queued (go on at once), else a promise of the runs' end or of `maxWaitMs`, whichever comes
   * first — so that the work still advances while runs follow one another without a gap.
   */
  giveWay(maxWaitMs: number, timers: Timers): Promise<void> | undefined {
    if (this.#current === undefined) return undefined;
    return new Promise((resolve) => {
      const timer = timers.after(maxWaitMs, resolve);
      void this.whenIdle().then(() => {
        timer.cancel();
        resolve();
      });
    });
  }

  /** Lets the current run finish, drops the queued one (its callers get undefined). */
  close(): Promise<void> {
    this.#closed = true;
    return this.whenIdle();
  }

  #run(triggers: Set<Trigger>): Promise<Result> {
    this.#unstartedTriggers = triggers;
    const run = Promise.resolve().then(() => {
      this.#unstartedTriggers = undefined;
      return this.#task(triggers);
    });
    this.#current = run;
    const next = (): void => {
      this.#current = undefined;
      const followUp = this.#followUp;
      this.#followUp = undefined;
      if (followUp === undefined) return;
      if (this.#closed) followUp.resolve(undefined);
      else this.#run(followUp.triggers).then(followUp.resolve, followUp.reject);
    };
    run.then(next, next);
    return run;
  }
}

interface FollowUp<Trigger, Result> {
  readonly triggers: Set<Trigger>;
  readonly promise: Promise<Result | undefined>;
  readonly resolve: (result: Result | undefined) => void;
  readonly reject: (err: unknown) => void;
}

function newFollowUp<Trigger, Result>(): FollowUp<Trigger, Result> {
  let resolve: FollowUp<Trigger, Result>['resolve'] = () => undefined;
  let reject: FollowUp<Trigger, Result>['reject'] = () => undefined;
  const promise = new Promise<Result | undefined>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { triggers: new Set(), promise, resolve, reject };
}
