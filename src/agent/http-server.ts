/**
 * The agent's HTTP endpoints for Prometheus and the kubelet, on loopback by default (the agent runs
 * with host networking, so anything else would expose it to the node's network):
 *
 * - GET /metrics  Prometheus text exposition.
 * - GET /healthz  liveness: 200 whenever the event loop can answer. It must not depend on VPP, or
 *                 a VPP restart would make the kubelet restart a healthy agent too.
 * - GET /readyz   200 when the config is valid, VPP is connected and the last reconcile on this
 *                 connection succeeded; else 503 with the reasons as JSON.
 * - GET /status   the agent's status as JSON.
 *
 * Unknown paths answer 404, other methods on known paths 405. With `metricsOnly` the server has
 * /metrics and nothing else: the listener Prometheus reaches on the node's IP, while health and
 * /status (which names the node's configuration) stay on loopback.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage, silentLogger, type AgentLogger } from './logger.js';
import { readinessOf, type AgentStatus } from './status.js';

export const DEFAULT_LISTEN_HOST = '127.0.0.1';
export const DEFAULT_LISTEN_PORT = 9464;

export interface MetricsSource {
  readonly contentType: string;
  text(): Promise<string>;
}

export interface AgentHttpServerOptions {
  readonly host?: string;
  /** 0 picks a free port (tests); see `address` after listen(). */
  readonly port?: number;
  readonly status: () => AgentStatus;
  readonly metrics: MetricsSource;
  readonly logger?: AgentLogger;
  /** Serve /metrics only (every other path is 404). */
  readonly metricsOnly?: boolean;
}

type Handler = (res: ServerResponse) => Promise<void> | void;

export class AgentHttpServer {
  readonly #host: string;
  readonly #port: number;
  readonly #status: () => AgentStatus;
  readonly #metrics: MetricsSource;
  readonly #logger: AgentLogger;
  readonly #server: Server;
  readonly #routes: ReadonlyMap<string, Handler>;

  constructor(opts: AgentHttpServerOptions) {
    this.#host = opts.host ?? DEFAULT_LISTEN_HOST;
    this.#port = opts.port ?? DEFAULT_LISTEN_PORT;
    this.#status = opts.status;
    this.#metrics = opts.metrics;
    this.#logger = opts.logger ?? silentLogger;
    const metrics: [string, Handler] = ['/metrics', (res) => this.#serveMetrics(res)];
    this.#routes = new Map<string, Handler>(
      opts.metricsOnly === true
        ? [metrics]
        : [
            metrics,
            ['/healthz', (res) => send(res, 200, 'text/plain; charset=utf-8', 'ok\n')],
            ['/readyz', (res) => this.#serveReadiness(res)],
            ['/status', (res) => sendJson(res, 200, this.#status())],
          ],
    );
    this.#server = createServer((req, res) => this.#handle(req, res));
  }

  /** Listens and resolves with the bound address; rejects on EADDRINUSE and the like. */
  listen(): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      const onError = (err: Error): void => reject(err);
      this.#server.once('error', onError);
      this.#server.listen(this.#port, this.#host, () => {
        this.#server.off('error', onError);
        this.#server.on('error', (err) => this.#logger.error({ err: err.message }, 'HTTP server error'));
        resolve(this.#server.address() as AddressInfo);
      });
    });
  }

  get address(): AddressInfo | undefined {
    const a = this.#server.address();
    return a !== null && typeof a === 'object' ? a : undefined;
  }

  /** Stops listening and drops open connections (scrapers keep them alive). */
  close(): Promise<void> {
    if (!this.#server.listening) return Promise.resolve();
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    // Bodies are never read; drain them so the connection stays usable.
    req.resume();
    const path = new URL(req.url ?? '/', 'http://agent').pathname;
    const handler = this.#routes.get(path);
    if (handler === undefined) {
      sendJson(res, 404, { error: `no such endpoint: ${path}` });
      return;
    }
    if (req.method !== 'GET') {
      res.setHeader('allow', 'GET');
      sendJson(res, 405, { error: `${req.method ?? '?'} not allowed on ${path}; use GET` });
      return;
    }
    Promise.resolve()
      .then(() => handler(res))
      .catch((err: unknown) => {
        this.#logger.error({ path, err: errorMessage(err) }, 'HTTP handler failed');
        if (!res.headersSent) sendJson(res, 500, { error: errorMessage(err) });
        else res.destroy();
      });
  }

  async #serveMetrics(res: ServerResponse): Promise<void> {
    const text = await this.#metrics.text();
    send(res, 200, this.#metrics.contentType, text);
  }

  #serveReadiness(res: ServerResponse): void {
    const readiness = readinessOf(this.#status());
    sendJson(res, readiness.ready ? 200 : 503, readiness);
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, 'application/json', `${JSON.stringify(body, null, 2)}\n`);
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, {
    'content-type': contentType,
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
