/** The datastore connection settings, shared by the CLI and the agent: flags, environment, errors. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  AGENT_CONNECTION_FLAGS,
  ConnectionSettingsError,
  connectionSettingsOf,
} from './connection-settings.js';

const rejects = (message: RegExp) => (err: unknown) => {
  assert.ok(err instanceof ConnectionSettingsError, String(err));
  assert.match(err.message, message);
  return true;
};

test('defaults, then the environment, then the flags', () => {
  const none = connectionSettingsOf({}, AGENT_CONNECTION_FLAGS, {});
  assert.deepEqual(none.store, { endpoints: ['http://127.0.0.1:2379'] });
  assert.equal(none.schema.prefix, '/vppnet/v1/');
  const env = {
    VPPNET_ETCD_ENDPOINTS: 'http://10.0.0.1:2379, 10.0.0.2:2379,',
    VPPNET_DATASTORE_PREFIX: '/env/v1/',
    VPPNET_ETCD_USER: 'agent',
    VPPNET_ETCD_PASSWORD: 'envpw',
    VPPNET_ETCD_INSECURE: 'true',
  };
  const fromEnv = connectionSettingsOf({}, AGENT_CONNECTION_FLAGS, env);
  assert.deepEqual(fromEnv.store, {
    endpoints: ['http://10.0.0.1:2379', '10.0.0.2:2379'],
    auth: { user: 'agent', password: 'envpw' },
  });
  assert.equal(fromEnv.schema.prefix, '/env/v1/');
  assert.deepEqual(fromEnv.insecureEndpoints, ['http://10.0.0.1:2379', '10.0.0.2:2379']);
  const fromFlags = connectionSettingsOf(
    { endpoints: 'https://e:2379', prefix: '/flag/v1/', user: 'op' },
    AGENT_CONNECTION_FLAGS,
    env,
  );
  assert.deepEqual(fromFlags.store, {
    endpoints: ['https://e:2379'],
    auth: { user: 'op', password: 'envpw' },
  });
  assert.equal(fromFlags.schema.prefix, '/flag/v1/');
  // An empty variable is unset, as for the agent's other settings.
  assert.deepEqual(connectionSettingsOf({}, AGENT_CONNECTION_FLAGS, { VPPNET_ETCD_ENDPOINTS: '' }).store, {
    endpoints: ['http://127.0.0.1:2379'],
  });
});

test("TLS files and the password file are read; errors name the caller's flags", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'vppnet-conn-'));
  try {
    const f = (name: string, text: string) => {
      writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    const ca = f('ca.pem', 'CA');
    const cert = f('c.pem', 'CERT');
    const key = f('k.pem', 'KEY');
    const pw = f('pw', 'secret\n');
    const s = connectionSettingsOf({ ca, cert, key, user: 'u', passwordFile: pw }, AGENT_CONNECTION_FLAGS, {
      VPPNET_ETCD_PASSWORD: 'not this one',
    });
    assert.deepEqual(
      {
        ca: s.store.tls?.ca.toString(),
        cert: s.store.tls?.cert?.toString(),
        key: s.store.tls?.key?.toString(),
        auth: s.store.auth,
      },
      { ca: 'CA', cert: 'CERT', key: 'KEY', auth: { user: 'u', password: 'secret' } },
    );
    // The same settings from the environment.
    const e = connectionSettingsOf({}, AGENT_CONNECTION_FLAGS, {
      VPPNET_ETCD_CA: ca,
      VPPNET_ETCD_CERT: cert,
      VPPNET_ETCD_KEY: key,
    });
    assert.equal(e.store.tls?.cert?.toString(), 'CERT');

    const agent =
      (flags: Parameters<typeof connectionSettingsOf>[0], env: NodeJS.ProcessEnv = {}) =>
      () =>
        connectionSettingsOf(flags, AGENT_CONNECTION_FLAGS, env);
    assert.throws(agent({ ca, cert }), rejects(/^--etcd-cert and --etcd-key go together$/));
    assert.throws(agent({ cert, key }), rejects(/^--etcd-cert needs --etcd-ca$/));
    assert.throws(
      agent({ user: 'u' }),
      rejects(/^--etcd-user needs a password \(--etcd-password-file or VPPNET_ETCD_PASSWORD\)$/),
    );
    assert.throws(
      agent({ user: 'u', passwordFile: path.join(dir, 'nope') }),
      rejects(/^--etcd-password-file \S+\/nope: ENOENT/),
    );
    assert.throws(agent({ ca: path.join(dir, 'nope') }), rejects(/^--etcd-ca \S+\/nope: ENOENT/));
    assert.throws(
      agent({}, { VPPNET_ETCD_CA: path.join(dir, 'nope') }),
      rejects(/^VPPNET_ETCD_CA \S+\/nope: ENOENT/),
    );
    assert.throws(
      agent({ prefix: 'vppnet' }),
      rejects(/^--datastore-prefix: datastore prefix "vppnet" must start/),
    );
    assert.throws(
      agent({}, { VPPNET_DATASTORE_PREFIX: '/x' }),
      rejects(/^VPPNET_DATASTORE_PREFIX: datastore prefix/),
    );
    assert.throws(agent({ endpoints: ' , ' }), rejects(/^--etcd-endpoints: names no endpoint$/));
    // Whatever names the caller gives its flags.
    assert.throws(
      () => connectionSettingsOf({ ca, cert }, { ...AGENT_CONNECTION_FLAGS, cert: '-C', key: '-K' }, {}),
      rejects(/^-C and -K go together$/),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('etcd without TLS beyond loopback is refused unless --etcd-insecure accepts it', () => {
  for (const endpoints of [
    'http://10.0.0.1:2379',
    '10.0.0.1:2379',
    'http://[2001:db8::5]:2379',
    'etcd.example:2379',
  ])
    assert.throws(
      () => connectionSettingsOf({ endpoints }, AGENT_CONNECTION_FLAGS, {}),
      rejects(
        new RegExp(
          `etcd at ${endpoints.replace(/[[\].]/g, '\\$&')} without TLS: .*--etcd-ca .*--etcd-insecure`,
        ),
      ),
      endpoints,
    );
  // One plaintext remote among secure ones is enough to refuse; the password is named then.
  assert.throws(
    () =>
      connectionSettingsOf(
        { endpoints: 'https://a:2379,http://b:2379', user: 'agent' },
        AGENT_CONNECTION_FLAGS,
        { VPPNET_ETCD_PASSWORD: 'pw' },
      ),
    rejects(/^etcd at http:\/\/b:2379 without TLS: the fleet's records and the etcd password/),
  );
  for (const endpoints of [
    '127.0.0.1:2379',
    'http://127.3.4.5:2379',
    'localhost:2379',
    'http://[::1]:2379',
    'https://e:2379',
  ])
    assert.deepEqual(
      connectionSettingsOf({ endpoints }, AGENT_CONNECTION_FLAGS, {}).insecureEndpoints,
      [],
      endpoints,
    );
  const accepted = connectionSettingsOf(
    { endpoints: '10.0.0.1:2379', insecure: true },
    AGENT_CONNECTION_FLAGS,
    {},
  );
  assert.deepEqual(accepted.insecureEndpoints, ['10.0.0.1:2379'], 'accepted, and reported for the warning');
  assert.deepEqual(
    connectionSettingsOf({ endpoints: '10.0.0.1:2379' }, AGENT_CONNECTION_FLAGS, {
      VPPNET_ETCD_INSECURE: 'true',
    }).insecureEndpoints,
    ['10.0.0.1:2379'],
  );
  assert.throws(
    () =>
      connectionSettingsOf({ endpoints: '10.0.0.1:2379' }, AGENT_CONNECTION_FLAGS, {
        VPPNET_ETCD_INSECURE: 'yes please',
      }),
    rejects(/without TLS/),
    'only true or 1 accepts it',
  );
});
