/**
 * The etcd client's link to the cluster: one member at a time on one gRPC channel, moving to the
 * next endpoint when the current one is unavailable; and, for a user, the auth token, fetched on
 * first use and again after etcd rejects it (simple tokens expire, and die with a restarted
 * member).
 *
 * By hand, because grpc-js has neither: its load balancing spreads over one name's addresses, not
 * over endpoints that each have their own host name (and TLS name); and its call credentials,
 * which could carry the token, refuse a plaintext channel, which a loopback etcd is.
 */
import * as grpc from '@grpc/grpc-js';
import { StoreUnavailableError } from '../store.js';
import type { StoreBackoff } from '../retry-schedule.js';
import type { EtcdEndpoint } from './endpoint.js';
import type { AuthenticateResponse__Output } from './generated/etcdserverpb/AuthenticateResponse.js';
import type { WatchRequest } from './generated/etcdserverpb/WatchRequest.js';
import { connectEtcd, type EtcdClients } from './grpc-api.js';
import type { WatchResponseMessage } from './watch-response.js';

export interface EtcdTls {
  /** PEM of the CA that signed etcd's server certificate. */
  readonly ca: Buffer;
  /** Client certificate and key (PEM), when etcd asks for one (--client-cert-auth). */
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

export interface EtcdConnectionOptions {
  readonly endpoints: readonly EtcdEndpoint[];
  readonly tls: EtcdTls | undefined;
  readonly auth: { readonly user: string; readonly password: string } | undefined;
  /** Deadline of each unary call. */
  readonly callTimeoutMs: number;
  /** The channel's own reconnect backoff. */
  readonly backoff: StoreBackoff;
}

export type WatchStream = grpc.ClientDuplexStream<WatchRequest, WatchResponseMessage>;

/** A unary call on the clients, answering through `done`: `(c, md, o, done) => c.kv.Txn(req, md, o, done)`. */
export type UnaryCall<Response> = (
  clients: EtcdClients,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  done: grpc.requestCallback<Response>,
) => void;

export class EtcdConnection {
  #current = 0;
  #clients: EtcdClients | undefined;
  /** The auth token, shared by the calls that wait for it. */
  #token: Promise<string> | undefined;
  #closed = false;

  readonly #options: EtcdConnectionOptions;

  constructor(options: EtcdConnectionOptions) {
    this.#options = options;
    if (options.endpoints.length === 0) throw new Error('etcd: at least one endpoint is required');
  }

  #connect(): EtcdClients {
    if (this.#closed) throw new StoreUnavailableError('etcd: the store is closed');
    if (this.#clients) return this.#clients;
    const { endpoints, tls, backoff } = this.#options;
    const ep = endpoints[this.#current % endpoints.length] as EtcdEndpoint;
    if (ep.secure && !tls) throw new Error(`etcd: ${ep.target} is https but no CA is given`);
    const credentials =
      ep.secure && tls
        ? grpc.credentials.createSsl(tls.ca, tls.key ?? null, tls.cert ?? null)
        : grpc.credentials.createInsecure();
    this.#clients = connectEtcd(ep.target, credentials, {
      // A silent partition is noticed by keepalive (a killed etcd resets the connection at once).
      // etcd's server refuses pings without an open call and more often than its
      // --grpc-keepalive-min-time (5 s): it answered 10 s with permit-without-calls by GOAWAY
      // "too_many_pings" (seen in bench/fleet), so pings go only with calls, every 30 s.
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      'grpc.keepalive_permit_without_calls': 0,
      'grpc.max_receive_message_length': 64 * 1024 * 1024,
      // A channel of its own connections: grpc-js otherwise shares them between channels to one
      // target, and a channel replaced for a connection that never answered (noteFailure) would
      // get the same one back.
      'grpc.use_local_subchannel_pool': 1,
      // The channel's own reconnect follows the same backoff as the watches (grpc-js: 1 s to 120 s).
      'grpc.initial_reconnect_backoff_ms': backoff.initialMs,
      'grpc.max_reconnect_backoff_ms': backoff.maxMs,
    });
    return this.#clients;
  }

  /**
   * A unary call. waitForReady: while the channel reconnects the call waits for it, up to its
   * deadline, instead of failing at once. A token etcd rejected is fetched again and the call
   * made once more.
   */
  async unary<Response>(method: string, call: UnaryCall<Response>): Promise<Response> {
    try {
      return await this.#unary(method, call, await this.#metadata(true));
    } catch (err) {
      if (this.#options.auth === undefined || grpcCode(err) !== grpc.status.UNAUTHENTICATED) throw err;
      return this.#unary(method, call, await this.#metadata(true));
    }
  }

  /**
   * A new Watch stream. Not waitForReady: a watch's break must be seen at once (the view's
   * staleness), not after a deadline. But the stream is opened only once the channel is
   * connected, waiting up to the call deadline: a stream on a channel whose connection was
   * accepted and never answered would wait for it with no end (grpc-js has no connect timeout),
   * and the deadline is what replaces that channel (noteFailure).
   */
  async watchStream(): Promise<WatchStream> {
    const metadata = await this.#metadata(false);
    const clients = this.#connect();
    const ms = this.#options.callTimeoutMs;
    await new Promise<void>((resolve, reject) =>
      // On the wall clock, as the unary calls' deadlines.
      clients.kv.waitForReady(Date.now() + ms, (err) => {
        if (err === undefined) resolve();
        else
          reject(
            new StoreUnavailableError(`etcd Watch: not connected within ${ms} ms (${err.message})`, {
              cause: { code: grpc.status.DEADLINE_EXCEEDED },
            }),
          );
      }),
    );
    return clients.watch(metadata);
  }

  /**
   * What a failed call or stream says of the link: an unavailable member is left for the next
   * endpoint, on a new channel; a rejected token is dropped. A deadline replaces the channel even
   * with one endpoint: its connection may be one that was accepted and never answered (a hung
   * member, a black hole), on which grpc-js waits for the HTTP/2 handshake with no end, so the
   * channel would never connect again when the endpoint does answer.
   */
  noteFailure(err: unknown): void {
    const code = grpcCode(err);
    if (code === grpc.status.UNAUTHENTICATED) this.#token = undefined;
    if (code !== grpc.status.UNAVAILABLE && code !== grpc.status.DEADLINE_EXCEEDED) return;
    if (!this.#clients) return;
    if (this.#options.endpoints.length < 2 && code !== grpc.status.DEADLINE_EXCEEDED) return;
    this.#clients.close();
    this.#clients = undefined;
    this.#current++;
  }

  close(): void {
    this.#closed = true;
    this.#clients?.close();
    this.#clients = undefined;
  }

  async #metadata(waitForReady: boolean): Promise<grpc.Metadata> {
    const metadata = new grpc.Metadata({ waitForReady });
    const auth = this.#options.auth;
    if (auth === undefined) return metadata;
    const token = (this.#token ??= this.#unary<AuthenticateResponse__Output>(
      'Authenticate',
      (c: EtcdClients, md, o, done) =>
        c.auth.Authenticate({ name: auth.user, password: auth.password }, md, o, done),
      new grpc.Metadata({ waitForReady }),
    ).then((res) => res.token));
    try {
      metadata.set('token', await token);
    } catch (err) {
      if (this.#token === token) this.#token = undefined;
      throw err;
    }
    return metadata;
  }

  #unary<Response>(method: string, call: UnaryCall<Response>, metadata: grpc.Metadata): Promise<Response> {
    const clients = this.#connect();
    return new Promise((resolve, reject) => {
      // grpc-js times a deadline against the wall clock itself: it is not one of vppnet's timers.
      call(clients, metadata, { deadline: Date.now() + this.#options.callTimeoutMs }, (err, res) => {
        if (err) {
          this.noteFailure(err);
          const message = `etcd ${method}: ${err.details || err.message}`;
          const unavailable =
            err.code === grpc.status.UNAVAILABLE || err.code === grpc.status.DEADLINE_EXCEEDED;
          reject(
            unavailable
              ? new StoreUnavailableError(message, { cause: err })
              : new Error(message, { cause: err }),
          );
        } else if (res === undefined) reject(new Error(`etcd ${method}: an answer without a response`));
        else resolve(res);
      });
    });
  }
}

/** The gRPC status code of an error, or of the error it wraps. */
function grpcCode(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  if ('code' in err && typeof err.code === 'number') return err.code;
  return 'cause' in err ? grpcCode(err.cause) : undefined;
}
