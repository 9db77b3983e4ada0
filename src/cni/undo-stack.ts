/**
 * Completed steps of a multi-step operation, undone in reverse order when a later step fails (as the
 * reference bridge plugin does with its deferred cleanups). An undo that fails is logged and the rest
 * still run: the caller reports the original failure, and the runtime's DEL will retry the cleanup.
 */
import type { CniLog } from './skel.js';

interface UndoStep {
  readonly description: string;
  readonly run: () => Promise<unknown>;
}

export class UndoStack {
  readonly #steps: UndoStep[] = [];

  push(description: string, run: () => Promise<unknown>): void {
    this.#steps.push({ description, run });
  }

  /** Runs and forgets every step, newest first. Never throws. */
  async unwind(log: CniLog): Promise<void> {
    for (let step = this.#steps.pop(); step !== undefined; step = this.#steps.pop()) {
      try {
        await step.run();
      } catch (err) {
        log.warn('undo step failed', {
          step: step.description,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
  }
}
