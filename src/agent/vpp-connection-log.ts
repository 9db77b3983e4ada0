/**
 * The agent's log of its VPP connection, subscribed to the client's events the way metrics.ts
 * subscribes to the agent's: what an operator reads when VPP restarts or never comes. While VPP is
 * down the client retries every few seconds, so only news is logged at info: gaining or losing the
 * connection, a new error, and the client giving up.
 */
import type { ConnectionState } from '../vpp/client/connection-state.js';
import type { ManagedVppApi, VppClientEvents } from '../vpp/client/vpp-api.js';
import type { AgentLogger } from './logger.js';

export interface VppConnectionLogOptions {
  readonly client: ManagedVppApi;
  /** The socket, named in every line. */
  readonly socketPath: string;
  readonly logger: AgentLogger;
  /** Successful handshakes so far (the agent's count, this one included). */
  readonly connections: () => number;
  /** Whether the agent runs: a client closed by stop() is no error. */
  readonly running: () => boolean;
}

export class VppConnectionLog {
  readonly #opts: VppConnectionLogOptions;
  #lastError: string | undefined;

  constructor(opts: VppConnectionLogOptions) {
    this.#opts = opts;
  }

  /** The last connection error since the last handshake, for status. */
  get lastError(): string | undefined {
    return this.#lastError;
  }

  /** Subscribes after the agent's own handlers, so a handshake is logged with its number. */
  attach(): void {
    const { client } = this.#opts;
    client.on('state', this.#onState);
    client.on('ready', this.#onReady);
    client.on('error', this.#onError);
  }

  detach(): void {
    const { client } = this.#opts;
    client.off('state', this.#onState);
    client.off('ready', this.#onReady);
    client.off('error', this.#onError);
  }

  readonly #onState: VppClientEvents['state'] = (to: ConnectionState, from: ConnectionState) => {
    const { logger, socketPath: socket } = this.#opts;
    const news = to === 'ready' || from === 'ready' || from === 'idle' || to === 'closed';
    const fields = { from, to, socket };
    if (news) logger.info(fields, `VPP connection ${from} -> ${to}`);
    else logger.debug(fields, `VPP connection ${from} -> ${to}`);
    if (to === 'closed' && this.#opts.running())
      logger.error(
        { socket, err: this.#lastError },
        'the VPP client stopped reconnecting; the agent cannot program VPP until it is restarted',
      );
  };

  readonly #onReady: VppClientEvents['ready'] = ({ reconnect }) => {
    this.#lastError = undefined;
    this.#opts.logger.info(
      { socket: this.#opts.socketPath, connection: this.#opts.connections() },
      reconnect ? 'VPP reconnected; full resync (VPP may have restarted)' : 'VPP connected',
    );
  };

  readonly #onError: VppClientEvents['error'] = (err: Error) => {
    const repeated = err.message === this.#lastError;
    this.#lastError = err.message;
    const fields = { socket: this.#opts.socketPath, err: err.message };
    if (repeated) this.#opts.logger.debug(fields, 'VPP connection failed again');
    else this.#opts.logger.warn(fields, 'VPP connection failed; retrying');
  };
}
