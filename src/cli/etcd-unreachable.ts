/**
 * What `vppnet datastore` says when etcd cannot be reached. gRPC's own words ("Deadline exceeded
 * … Waiting for LB pick") name neither the endpoint nor the cause; the operator needs both: which
 * endpoints were tried, for how long, and what a plain TCP connect to each says (refused, no such
 * host, no answer), which tells a stopped etcd from a wrong address or a firewall.
 */
import { connect } from 'node:net';
import { VppnetError } from '../util/errors.js';

/** How long one probe of an endpoint may take: the call's deadline has already passed. */
const PROBE_TIMEOUT_MS = 1000;

export class EtcdUnreachableError extends VppnetError<'VPPNET_ERR_ETCD_UNREACHABLE'> {
  override readonly name = 'EtcdUnreachableError';
  constructor(message: string, options?: ErrorOptions) {
    super('VPPNET_ERR_ETCD_UNREACHABLE', message, options);
  }
}

/** `cannot reach etcd at URL within N s: WHY` for each endpoint, after a call failed for want of one. */
export async function etcdUnreachableError(
  endpoints: readonly string[],
  deadlineMs: number,
  cause: Error,
): Promise<EtcdUnreachableError> {
  const why = await Promise.all(endpoints.map((e) => probe(e, cause)));
  const each = endpoints.map((e, i) => `${e}: ${why[i]}`);
  const summary =
    endpoints.length === 1
      ? `cannot reach etcd at ${endpoints[0]} within ${deadlineMs / 1000} s: ${why[0]}`
      : `cannot reach etcd at any of ${endpoints.join(', ')} within ${deadlineMs / 1000} s (${each.join('; ')})`;
  return new EtcdUnreachableError(summary, { cause });
}

/** What a TCP connect to the endpoint says; when it connects, gRPC's reason is the one to give. */
async function probe(endpoint: string, cause: Error): Promise<string> {
  let host: string;
  let port: number;
  try {
    const url = new URL(endpoint.includes('://') ? endpoint : `http://${endpoint}`);
    host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    port = Number(url.port);
  } catch {
    return cause.message;
  }
  if (!port) return cause.message;
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: PROBE_TIMEOUT_MS });
    const done = (reason: string): void => {
      socket.destroy();
      resolve(reason);
    };
    socket.once('connect', () => done(`it accepts connections, but ${cause.message}`));
    socket.once('timeout', () => done(`no answer from ${host}:${port}`));
    socket.once('error', (err: NodeJS.ErrnoException) => done(SOCKET_ERRORS[err.code ?? ''] ?? err.message));
  });
}

const SOCKET_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
};
