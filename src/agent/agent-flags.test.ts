import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAgentFlags, parseDuration, parseListenAddress, UsageError } from './agent-flags.js';

describe('parseAgentFlags', () => {
  it('defaults to the DaemonSet paths and loopback metrics', () => {
    assert.deepEqual(parseAgentFlags([], {}), {
      configPath: '/etc/vppnet/config.yaml',
      vppSocketPath: '/run/vpp/api.sock',
      stateDir: '/var/lib/vppnet',
      agentSocketPath: '/run/vppnet-agent/agent.sock',
      serviceMapSocketPath: '/run/vppnet/services/service-map.sock',
      podNetnsDirs: ['/run/netns', '/var/run/netns'],
      listen: { host: '127.0.0.1', port: 9464 },
      driftIntervalMs: 60_000,
      logLevel: 'info',
    });
  });

  it('keeps the privileged socket out of the directory the service pods mount', () => {
    for (const [agent, map] of [
      ['/run/vppnet/agent.sock', '/run/vppnet/service-map.sock'],
      ['/run/vppnet/services/x/agent.sock', '/run/vppnet/services/service-map.sock'],
      ['/run/a/agent.sock', '/service-map.sock'],
    ] as const)
      assert.throws(
        () => parseAgentFlags(['--agent-socket', agent, '--service-map-socket', map], {}),
        (err: unknown) => err instanceof UsageError && /service pods mount/.test(err.message),
        `${agent} beside ${map}`,
      );
    const off = parseAgentFlags([], { VPPNET_SERVICE_MAP_SOCKET: 'none' });
    assert.ok(typeof off === 'object' && off.serviceMapSocketPath === undefined);
    assert.throws(() => parseAgentFlags(['--service-map-socket', 'rel.sock'], {}), /not an absolute path/);
  });

  it('takes the runtime netns directories as a comma-separated list of absolute paths', () => {
    const flags = parseAgentFlags(['--netns-dirs', '/var/run/docker/netns, /run/netns'], {});
    assert.ok(typeof flags === 'object');
    assert.deepEqual(flags.podNetnsDirs, ['/var/run/docker/netns', '/run/netns']);
    assert.throws(() => parseAgentFlags(['--netns-dirs', 'netns'], {}), /absolute directories/);
    assert.throws(() => parseAgentFlags([], { VPPNET_NETNS_DIRS: ',' }), /absolute directories/);
  });

  it('takes flags over environment variables over defaults', () => {
    const env = {
      VPPNET_CONFIG: '/env/config.yaml',
      VPPNET_LOG_LEVEL: 'debug',
      VPPNET_DRIFT_INTERVAL: '5m',
      VPPNET_STATE_DIR: '',
    };
    const flags = parseAgentFlags(
      ['--config', '/flag/config.yaml', '--listen', '[::1]:9000', '--vpp-socket=/tmp/api.sock'],
      env,
    );
    assert.equal(typeof flags, 'object');
    if (typeof flags === 'string') return;
    assert.equal(flags.configPath, '/flag/config.yaml');
    assert.equal(flags.logLevel, 'debug');
    assert.equal(flags.driftIntervalMs, 300_000);
    assert.equal(flags.stateDir, '/var/lib/vppnet', 'an empty variable counts as unset');
    assert.deepEqual(flags.listen, { host: '::1', port: 9000 });
    assert.equal(flags.vppSocketPath, '/tmp/api.sock');
  });

  it('etcd mode: the node name, and the connection flags for connectionSettingsOf', () => {
    const flags = parseAgentFlags(
      ['--datastore', 'etcd', '--etcd-ca', '/tls/ca.crt', '--etcd-endpoints', 'https://10.0.0.1:2379'],
      { VPPNET_NODE_NAME: 'hv-1.example' },
    );
    assert.equal(typeof flags, 'object');
    if (typeof flags === 'string') return;
    assert.deepEqual(flags.etcd, {
      nodeName: 'hv-1.example',
      connection: { endpoints: 'https://10.0.0.1:2379', ca: '/tls/ca.crt' },
    });
    const file = parseAgentFlags([], { VPPNET_DATASTORE: 'file' });
    assert.equal(typeof file !== 'string' && file.etcd, undefined, 'file mode has no etcd settings');
  });

  it('etcd mode: refuses what cannot work, naming the flag', () => {
    const bad = (argv: string[], env: NodeJS.ProcessEnv, re: RegExp) =>
      assert.throws(
        () => parseAgentFlags(argv, env),
        (e: unknown) => e instanceof UsageError && re.test(e.message),
      );
    bad(['--datastore', 'consul'], {}, /^--datastore: expected file or etcd, got 'consul'$/);
    bad([], { VPPNET_DATASTORE: 'etcd' }, /needs --node-name \(or VPPNET_NODE_NAME\)/);
    bad(
      ['--datastore', 'etcd', '--node-name', 'HV_1'],
      {},
      /^--node-name: 'HV_1' is not a Kubernetes node name/,
    );
    bad(['--datastore', 'etcd', '--node-name', 'hv1', '--etcd-ca', ''], {}, /^--etcd-ca must not be empty$/);
  });

  it('answers --help, and --version or -V', () => {
    assert.equal(parseAgentFlags(['--help'], {}), 'help');
    assert.equal(parseAgentFlags(['--version'], {}), 'version');
    assert.equal(parseAgentFlags(['-V'], {}), 'version');
  });

  it('rejects bad flags with a message naming them', () => {
    const cases: [string[], RegExp][] = [
      [['--bogus'], /Unknown option '--bogus'/],
      [['--listen', 'localhost'], /--listen: expected HOST:PORT/],
      [['--listen', '1.2.3.4:70000'], /--listen/],
      [['--drift-interval', 'soon'], /--drift-interval: expected a duration/],
      [['--log-level', 'loud'], /--log-level: expected one of fatal, error/],
      [['--config', ''], /--config must not be empty/],
      [['extra'], /positional/i],
    ];
    for (const [argv, message] of cases) {
      assert.throws(
        () => parseAgentFlags(argv, {}),
        (err: unknown) => err instanceof UsageError && message.test(err.message),
        argv.join(' '),
      );
    }
  });
});

describe('parseDuration', () => {
  it('reads units, and seconds without one', () => {
    assert.equal(parseDuration('500ms'), 500);
    assert.equal(parseDuration('1.5s'), 1500);
    assert.equal(parseDuration('30'), 30_000);
    assert.equal(parseDuration('2m'), 120_000);
    assert.equal(parseDuration('1h'), 3_600_000);
    assert.equal(parseDuration('0'), 0);
    assert.throws(() => parseDuration('30d'), UsageError);
    assert.throws(() => parseDuration('1000h'), /too long/);
  });
});

describe('parseListenAddress', () => {
  it('reads host:port, [ipv6]:port and :port', () => {
    assert.deepEqual(parseListenAddress('0.0.0.0:1'), { host: '0.0.0.0', port: 1 });
    assert.deepEqual(parseListenAddress('[fe80::1]:9464'), { host: 'fe80::1', port: 9464 });
    assert.deepEqual(parseListenAddress(':9464'), { host: '::', port: 9464 });
    assert.throws(() => parseListenAddress('::1:9464'), UsageError);
  });
});

describe('--metrics-listen', () => {
  it('is off by default, read from the flag or VPPNET_METRICS_LISTEN, and named in its error', () => {
    const flags = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
      const f = parseAgentFlags(argv, env);
      assert.ok(f !== 'help' && f !== 'version');
      return f;
    };
    assert.equal(flags([])?.metricsListen, undefined);
    assert.deepEqual(flags([], { VPPNET_METRICS_LISTEN: '10.0.0.7:9465' })?.metricsListen, {
      host: '10.0.0.7',
      port: 9465,
    });
    assert.deepEqual(flags(['--metrics-listen', '[2001:db8::7]:9465'])?.metricsListen, {
      host: '2001:db8::7',
      port: 9465,
    });
    assert.throws(
      () => parseAgentFlags(['--metrics-listen', '10.0.0.7'], {}),
      /^UsageError: --metrics-listen: expected HOST:PORT/,
    );
  });
});
