/**
 * The values' `datastore` section: file mode, or fleet mode's etcd connection (endpoints, prefix,
 * TLS, password or per-node users), checked as the agent will use it. Apart from the rest of the
 * values because the etcd settings' rules (which combinations the agent accepts) are their own.
 */
import { plaintextRemoteEndpoints } from '../../src/datastore/connection-settings.js';
import { DEFAULT_PREFIX, KeySchema } from '../../src/datastore/keys.js';
import type { DatastoreValues } from './values.js';
import { DNS_SUBDOMAIN, type Checker } from './values-checker.js';

/** The modes of DatastoreValues. */
export const DATASTORE_MODES = ['file', 'etcd'] as const;

const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;

/**
 * `datastore`. The etcd settings' shapes are checked in either mode (a typo is never silently
 * ignored); what fleet mode needs (endpoints, the TLS Secret with https://) only with mode etcd.
 */
export function parseDatastore(c: Checker, raw: unknown): DatastoreValues {
  const ds = c.object(raw, 'datastore', ['mode', 'etcd']);
  const mode = c.oneOf(ds.mode, 'datastore.mode', DATASTORE_MODES);
  const fleet = mode === 'etcd';
  const e = c.object(ds.etcd ?? {}, 'datastore.etcd', [
    'endpoints',
    'prefix',
    'tls',
    'user',
    'passwordSecret',
    'perNodeUsers',
  ]);

  const endpoints = c.stringList(e.endpoints ?? [], 'datastore.etcd.endpoints');
  if (fleet && Array.isArray(e.endpoints ?? []) && endpoints.length === 0)
    c.fail(
      'datastore.etcd.endpoints',
      'must list at least one etcd endpoint (https://HOST:PORT) with datastore.mode etcd',
    );

  // The defaults of default.yaml, for values that leave the section out.
  const prefixText = c.string(e.prefix ?? DEFAULT_PREFIX, 'datastore.etcd.prefix');
  if (prefixText !== '') {
    try {
      new KeySchema(prefixText);
      if (/\s/.test(prefixText)) c.fail('datastore.etcd.prefix', 'must not contain white space');
    } catch {
      c.fail(
        'datastore.etcd.prefix',
        `must start and end with "/" (e.g. /vppnet/v1/), got ${JSON.stringify(prefixText)}`,
      );
    }
  }

  const t = c.object(e.tls ?? {}, 'datastore.etcd.tls', ['enabled', 'secretName']);
  const tlsEnabled = c.boolean(t.enabled ?? true, 'datastore.etcd.tls.enabled');
  let tlsSecretName: string | undefined;
  if (t.secretName !== undefined && t.secretName !== null)
    tlsSecretName = c.string(t.secretName, 'datastore.etcd.tls.secretName', DNS_SUBDOMAIN, 'a Secret name');
  if (tlsEnabled && tlsSecretName === undefined && fleet)
    c.fail(
      'datastore.etcd.tls.secretName',
      'is required when datastore.etcd.tls.enabled is true: a Secret in the namespace with ca.crt, tls.crt and tls.key (kubernetes.io/tls plus ca.crt, as cert-manager issues it)',
    );
  if (!tlsEnabled && tlsSecretName !== undefined)
    c.fail(
      'datastore.etcd.tls.secretName',
      'is set but datastore.etcd.tls.enabled is false: enable TLS or remove it',
    );

  endpoints.forEach((text, i) => {
    const path = `datastore.etcd.endpoints[${i}]`;
    const problem = endpointProblem(text);
    if (problem !== undefined) c.fail(path, problem);
    else if (tlsEnabled && text.startsWith('http://'))
      c.fail(
        path,
        `is http:// but datastore.etcd.tls.enabled is true: use https://, or the agent would send its credentials in plaintext`,
      );
    else if (!tlsEnabled && text.startsWith('https://'))
      c.fail(
        path,
        'is https:// but datastore.etcd.tls.enabled is false: the agent would have no CA to check the server with',
      );
    else if (!tlsEnabled && plaintextRemoteEndpoints({ endpoints: [text] }).length > 0)
      c.fail(
        path,
        'is beyond loopback without TLS: the agent refuses it (records and credentials in clear text); enable datastore.etcd.tls',
      );
  });

  let user: string | undefined;
  if (e.user !== undefined && e.user !== null)
    user = c.string(e.user, 'datastore.etcd.user', /^\S+$/, 'an etcd user name without white space');
  const ps = c.object(e.passwordSecret ?? {}, 'datastore.etcd.passwordSecret', ['name', 'key']);
  let secretName: string | undefined;
  if (ps.name !== undefined && ps.name !== null)
    secretName = c.string(ps.name, 'datastore.etcd.passwordSecret.name', DNS_SUBDOMAIN, 'a Secret name');
  const secretKey = c.string(
    ps.key ?? 'password',
    'datastore.etcd.passwordSecret.key',
    SECRET_KEY,
    'a Secret data key',
  );
  if (user !== undefined && secretName === undefined)
    c.fail(
      'datastore.etcd.passwordSecret.name',
      `is required when datastore.etcd.user is set: the Secret holding ${user}'s password`,
    );
  if (user === undefined && secretName !== undefined)
    c.fail(
      'datastore.etcd.user',
      'is required when datastore.etcd.passwordSecret is set: whose password it is',
    );

  let perNodeUsers: { secretName: string; userPrefix: string } | undefined;
  if (e.perNodeUsers !== undefined && e.perNodeUsers !== null) {
    const p = c.object(e.perNodeUsers, 'datastore.etcd.perNodeUsers', ['secretName', 'userPrefix']);
    const name = c.string(
      p.secretName,
      'datastore.etcd.perNodeUsers.secretName',
      DNS_SUBDOMAIN,
      'a Secret name',
    );
    const userPrefix = c.string(
      p.userPrefix ?? 'vppnet-',
      'datastore.etcd.perNodeUsers.userPrefix',
      /^[-._a-zA-Z0-9]*$/,
      'letters, digits, ".", "_" and "-" (the node name follows it)',
    );
    if (user !== undefined)
      c.fail(
        'datastore.etcd.perNodeUsers',
        'and datastore.etcd.user are exclusive: one user for every agent, or one per node',
      );
    if (name !== undefined && userPrefix !== undefined) perNodeUsers = { secretName: name, userPrefix };
  }

  if (!fleet) return { mode: 'file' };
  return {
    mode: 'etcd',
    etcd: {
      endpoints,
      prefix: prefixText,
      tlsSecretName: tlsEnabled ? tlsSecretName : undefined,
      auth:
        user !== undefined && secretName !== undefined
          ? { user, passwordSecret: { name: secretName, key: secretKey } }
          : undefined,
      perNodeUsers,
    },
  };
}

/** What is wrong with an etcd endpoint, or undefined: `http(s)://HOST:PORT`, nothing more. */
function endpointProblem(text: string): string | undefined {
  const expected = `must be http(s)://HOST:PORT (e.g. https://etcd-0.example.com:2379), got ${JSON.stringify(text)}`;
  // The agent takes the endpoints as one comma-separated variable.
  if (text.includes(',')) return `${expected}: one endpoint per list item`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return expected;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return expected;
  if (
    url.hostname === '' ||
    url.username !== '' ||
    url.password !== '' ||
    url.search !== '' ||
    url.hash !== ''
  )
    return expected;
  if (url.pathname !== '/' || text.endsWith('/')) return `${expected}: no path`;
  // The port must be written: gRPC would otherwise take 80/443, never etcd's 2379.
  if (!/:\d{1,5}$/.test(text)) return `${expected}: the port is missing`;
  return undefined;
}
