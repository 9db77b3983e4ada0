/**
 * Tells when the agent's config file may have changed. It watches the file's directory, not the
 * file: editors and `kubectl cp` replace files by rename, and Kubernetes updates a ConfigMap mount
 * by swapping the `..data` symlink the file resolves through, so a watch on the file itself
 * would stay on the old inode and never fire again. Any event in the directory schedules one
 * debounced notification; the caller re-reads the file and ignores content that did not change.
 *
 * fs.watch can lose its directory (deleted, remounted) without an error on some filesystems, so
 * `ensureWatching()` re-arms when the directory's inode changed; the agent calls it periodically.
 */
import { statSync, watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';
import { systemTimers, type Timer, type Timers } from '../util/timers.js';
import { errorMessage } from './logger.js';

export interface ConfigWatcherOptions {
  /** The config file; its directory is watched. */
  readonly path: string;
  /** Quiet time after the last event before `onChange` (a ConfigMap swap is several events). */
  readonly debounceMs: number;
  readonly onChange: () => void;
  /** The watch could not be set up or broke; reported once per distinct problem. */
  readonly onError: (message: string) => void;
  /** The debounce's time; tests drive it. Default: the system's. */
  readonly timers?: Timers;
}

export class ConfigFileWatcher {
  readonly #dir: string;
  readonly #opts: ConfigWatcherOptions;
  #watcher: FSWatcher | undefined;
  #watchedInode: number | undefined;
  readonly #timers: Timers;
  #debounce: Timer | undefined;
  #lastError: string | undefined;
  #closed = false;

  constructor(opts: ConfigWatcherOptions) {
    this.#opts = opts;
    this.#timers = opts.timers ?? systemTimers;
    this.#dir = dirname(opts.path);
  }

  get watching(): boolean {
    return this.#watcher !== undefined;
  }

  /**
   * Starts the watch, or restarts it when the directory was replaced since. Returns whether the
   * directory is watched now. A restart also schedules a change: events may have been missed.
   */
  ensureWatching(): boolean {
    if (this.#closed) return false;
    let inode: number;
    try {
      inode = statSync(this.#dir).ino;
    } catch (err) {
      this.#unwatch();
      this.#reportError(`cannot watch ${this.#dir}: ${errorMessage(err)}`);
      return false;
    }
    if (this.#watcher !== undefined && inode === this.#watchedInode) return true;
    // Anything may have changed while the directory was not watched.
    const rearming = this.#watchedInode !== undefined || this.#lastError !== undefined;
    this.#unwatch();
    try {
      const watcher = watch(this.#dir, { persistent: true }, () => this.#schedule());
      watcher.on('error', (err) => {
        if (this.#watcher !== watcher) return;
        this.#unwatch();
        this.#reportError(`watching ${this.#dir} failed: ${err.message}`);
      });
      this.#watcher = watcher;
      this.#watchedInode = inode;
    } catch (err) {
      this.#reportError(`cannot watch ${this.#dir}: ${errorMessage(err)}`);
      return false;
    }
    this.#lastError = undefined;
    if (rearming) this.#schedule();
    return true;
  }

  close(): void {
    this.#closed = true;
    this.#unwatch();
    this.#debounce?.cancel();
    this.#debounce = undefined;
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#debounce?.cancel();
    this.#debounce = this.#timers.after(this.#opts.debounceMs, () => {
      this.#debounce = undefined;
      this.#opts.onChange();
    });
  }

  #unwatch(): void {
    this.#watcher?.close();
    this.#watcher = undefined;
  }

  #reportError(message: string): void {
    if (message === this.#lastError) return;
    this.#lastError = message;
    this.#opts.onError(message);
  }
}
