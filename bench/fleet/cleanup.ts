/**
 * What the benchmark started (etcd, simulators, agents, cgroups, a temp dir) is stopped however it
 * ends: done, failed, or interrupted. A benchmark that leaves twenty agents and an etcd behind
 * spoils the next run's numbers.
 */

/** Undo actions, run last first, each once, errors collected rather than stopping the rest. */
export class Cleanup {
  readonly #actions: { readonly what: string; readonly run: () => Promise<void> }[] = [];
  #ran: Promise<string[]> | undefined;

  add(what: string, run: () => Promise<void>): void {
    this.#actions.push({ what, run });
  }

  run(): Promise<string[]> {
    this.#ran ??= (async () => {
      const errors: string[] = [];
      for (const a of this.#actions.reverse()) {
        try {
          await a.run();
        } catch (err) {
          errors.push(`${a.what}: ${(err as Error).message}`);
        }
      }
      return errors;
    })();
    return this.#ran;
  }
}

/**
 * Runs `main`, then its cleanup; on SIGINT or SIGTERM the cleanup at once and exit 130. A failure
 * sets the exit code; the cleanup's own errors are printed, not thrown.
 */
export async function runThenCleanUp(name: string, main: (cleanup: Cleanup) => Promise<void>): Promise<void> {
  const cleanup = new Cleanup();
  let interrupted = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      interrupted = true;
      process.stderr.write(`${name}: ${signal}, stopping everything it started\n`);
      void cleanup.run().then((errors) => {
        for (const e of errors) process.stderr.write(`  cleanup: ${e}\n`);
        process.exit(130);
      });
    });
  }
  try {
    await main(cleanup);
  } catch (err) {
    if (!interrupted) {
      process.stderr.write(`${name} failed: ${(err as Error).stack ?? String(err)}\n`);
      process.exitCode = 1;
    }
  } finally {
    if (!interrupted) {
      const errors = await cleanup.run();
      for (const e of errors) process.stderr.write(`  cleanup: ${e}\n`);
    }
  }
}
