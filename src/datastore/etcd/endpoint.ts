/**
 * An etcd endpoint as the flags spell it: host:port, http://host:port or https://host:port. The
 * client (etcd-store.ts) and the plaintext check of the connection settings read it the same way:
 * https, or no scheme when a CA is given, is TLS.
 */
export interface EtcdEndpoint {
  /** host:port, gRPC's target. */
  readonly target: string;
  readonly secure: boolean;
}

/** The endpoint, or undefined when `spelled` is none of the three forms. */
export function parseEtcdEndpoint(spelled: string, tlsGiven: boolean): EtcdEndpoint | undefined {
  const m = /^(?:(https?):\/\/)?([^/]+)\/?$/.exec(spelled);
  if (!m) return undefined;
  return { target: m[2] as string, secure: m[1] === 'https' || (m[1] === undefined && tlsGiven) };
}
