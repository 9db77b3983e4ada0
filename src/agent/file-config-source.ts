/**
 * File mode's config: the config file, watched (config-watcher.ts) and re-read on each change.
 * An invalid file is reported (log, status) while the last good config stays in force, because
 * tearing down a working dataplane over a typo would turn a config mistake into an outage.
 */
import { loadConfigFile } from '../config/load.js';
import type { AgentConfig } from '../config/model.js';
import { ConfigError, type ConfigProblem } from '../config/validate.js';
import { systemTimers, type Timers } from '../util/timers.js';
import {
  NOT_STARTED_HANDLERS,
  type ConfigSource,
  type ConfigSourceHandlers,
  type SourcePassPlan,
} from './config-source.js';
import { ConfigFileWatcher } from './config-watcher.js';
import { errorMessage, silentLogger, type AgentLogger } from './logger.js';
import type { ConfigStatus } from './status.js';

export const DEFAULT_CONFIG_DEBOUNCE_MS = 250;

export interface FileConfigSourceOptions {
  readonly path: string;
  /** Quiet time after a change in the config's directory before re-reading the file. */
  readonly debounceMs?: number;
  /** The debounce's time (the agent's, where tests drive it); default the system's. */
  readonly timers?: Timers;
  /** Milliseconds since the epoch, for the status's timestamps. Default: `timers.now`. */
  readonly clock?: () => number;
  readonly logger?: AgentLogger;
}

/** The file says nothing of what changed in it: every pass reads it whole. */
const FULL_PASS: SourcePassPlan = { kind: 'full' };

export class FileConfigSource implements ConfigSource {
  readonly description: string;
  readonly datastore = undefined;
  readonly #clock: () => number;
  readonly #logger: AgentLogger;
  readonly #watcher: ConfigFileWatcher;
  #handlers = NOT_STARTED_HANDLERS;
  #config: AgentConfig | undefined;
  /** Its canonical JSON, to tell a real change from a rewrite with equal content. */
  #configKey: string | undefined;
  #status: ConfigStatus;
  /** Reads run one after another, so an older read never overwrites a newer one. */
  #reads: Promise<unknown> = Promise.resolve();

  constructor(opts: FileConfigSourceOptions) {
    this.description = opts.path;
    const timers = opts.timers ?? systemTimers;
    this.#clock = opts.clock ?? (() => timers.now());
    this.#logger = opts.logger ?? silentLogger;
    this.#status = { path: opts.path, valid: false, problems: [] };
    this.#watcher = new ConfigFileWatcher({
      path: opts.path,
      debounceMs: opts.debounceMs ?? DEFAULT_CONFIG_DEBOUNCE_MS,
      timers,
      onChange: () => void this.reload(),
      onError: (message) =>
        this.#logger.warn(
          { path: opts.path },
          `${message}; the config is re-read on each drift check instead`,
        ),
    });
  }

  get config(): AgentConfig | undefined {
    return this.#config;
  }

  get status(): ConfigStatus {
    return this.#status;
  }

  get reads(): Promise<unknown> {
    return this.#reads;
  }

  async start(handlers: ConfigSourceHandlers): Promise<void> {
    this.#handlers = handlers;
    this.#watcher.ensureWatching();
    await this.reload();
  }

  /**
   * Re-reads the file now. A valid, changed config asks for a pass; an invalid one is reported and
   * the last good one stays in force.
   */
  reload(): Promise<ConfigStatus> {
    const read = this.#reads.then(() => this.#read());
    this.#reads = read.catch(() => undefined);
    return read;
  }

  /**
   * The drift check's re-read, also the watch's safety net: events can be lost (some filesystems,
   * a replaced directory), so the watch is re-armed first.
   */
  async recheck(): Promise<void> {
    this.#watcher.ensureWatching();
    await this.reload();
  }

  planPass(): SourcePassPlan {
    return FULL_PASS;
  }

  stopWatching(): void {
    this.#watcher.close();
  }

  async stop(): Promise<void> {
    this.#watcher.close();
    await this.#reads;
  }

  async #read(): Promise<ConfigStatus> {
    const path = this.description;
    const checkedAt = new Date(this.#clock()).toISOString();
    const inForceSince = this.#status.inForceSince;
    let config: AgentConfig;
    try {
      config = await loadConfigFile(path);
    } catch (err) {
      const problems: readonly ConfigProblem[] =
        err instanceof ConfigError ? err.problems : [{ path: '(file)', message: errorMessage(err) }];
      const news = this.#status.valid || JSON.stringify(problems) !== JSON.stringify(this.#status.problems);
      this.#status = {
        path,
        valid: false,
        problems,
        checkedAt,
        ...(inForceSince === undefined ? {} : { inForceSince }),
      };
      // The same problems again (drift check re-reads) are not news; a changed set is.
      if (news) {
        const keeping =
          this.#config === undefined ? 'waiting for a valid config' : 'the last good config stays in force';
        this.#logger.error(
          { path, problems, lastGoodInForce: this.#config !== undefined },
          `config ${path} is invalid (${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}); ${keeping}`,
        );
      }
      this.#handlers.checked(this.#status);
      return this.#status;
    }

    const key = JSON.stringify(config);
    const changed = key !== this.#configKey;
    const wasInvalid = this.#status.checkedAt !== undefined && !this.#status.valid;
    const first = this.#config === undefined;
    if (changed) {
      this.#config = config;
      this.#configKey = key;
    }
    this.#status = {
      path,
      valid: true,
      problems: [],
      checkedAt,
      inForceSince: changed || inForceSince === undefined ? checkedAt : inForceSince,
    };
    if (changed) {
      this.#logger.info(
        { path, node: config.node.name, vpcs: config.vpcs.length, ports: config.ports.length },
        first ? 'config loaded' : 'config changed; reconciling',
      );
      this.#handlers.changed('config-change');
    } else if (wasInvalid) {
      this.#logger.info({ path }, 'config is valid again and equal to the config in force');
    }
    this.#handlers.checked(this.#status);
    return this.#status;
  }
}
