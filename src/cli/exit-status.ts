/**
 * How the executable reports a command that failed: one line on stderr (no stack trace: the
 * operator needs what went wrong, not where in our code), and the exit status the README
 * documents: 2 for a command line the CLI cannot run, 1 for everything else (an invalid config or
 * records file, a VPP or etcd that cannot be reached).
 */
import { DatastoreUsageError } from './datastore.js';
import { CliUsageError } from './usage-error.js';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export function exitCodeOf(err: unknown): number {
  return err instanceof CliUsageError || err instanceof DatastoreUsageError ? EXIT_USAGE : EXIT_FAILURE;
}

/** What follows "vppnet" on stderr; a usage error's message starts with its command's name. */
export function errorLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return exitCodeOf(err) === EXIT_USAGE ? ` ${message}` : `: ${message}`;
}
