/**
 * deploy/render's values: overlay merging, the checks on the merged tree, and the agent configs
 * checked with the agent's own validator at render time.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BASE_OVERLAY, VALUES_DIR } from '../../deploy/render/overlays.js';
import { ETCD_USERS_MOUNT_DIR, FLEET_ENV } from '../../deploy/render/contract.js';
import { parseAgentFlags } from '../../src/agent/agent-flags.js';
import { AGENT_CONNECTION_FLAGS, etcdOptionsOf } from '../../src/datastore/connection-settings.js';
import { renderManifests } from '../../deploy/render/render.js';
import { parseQuantity } from '../../deploy/render/quantity.js';
import { ValuesError, mergeValues, parseValues, parseValuesYaml } from '../../deploy/render/values.js';

const base = (): Record<string, unknown> =>
  parseValuesYaml(readFileSync(join(VALUES_DIR, `${BASE_OVERLAY}.yaml`), 'utf8'), 'default.yaml') as Record<
    string,
    unknown
  >;

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValuesError) return err.problems.map((p) => `${p.path}: ${p.message}`);
    throw err;
  }
  assert.fail('expected a ValuesError');
}

const render = (raw: unknown) => renderManifests(parseValues(raw, 'test'), { valuesFiles: 'test' });

describe('deploy values', () => {
  it('merges overlays: mappings by key, lists replaced, null removes, nodes replaced whole', () => {
    const merged = mergeValues(
      { a: { b: 1, c: [1, 2], d: 'x' }, nodes: { hv1: { node: 1 } }, e: 1 },
      { a: { b: 2, c: [3], d: null }, nodes: { hv2: { node: 2 } } },
    );
    assert.deepEqual(merged, { a: { b: 2, c: [3] }, nodes: { hv2: { node: 2 } }, e: 1 });
  });

  it('parses the documented defaults', () => {
    const v = parseValues(base(), 'default.yaml');
    assert.equal(v.namespace, 'vppnet-system');
    assert.deepEqual(v.agent.listen, { host: '127.0.0.1', port: 9464 });
    assert.deepEqual([...v.nodes.keys()], ['hv1']);
    assert.equal(v.examples.enabled, false);
    assert.equal(v.agent.nodeOptions, '--v8-pool-size=1');
    assert.equal(
      parseValues(mergeValues(base(), { agent: { nodeOptions: '' } }), 'test').agent.nodeOptions,
      '',
    );
  });

  it('reports every problem at once, each with its path', () => {
    const raw = mergeValues(base(), {
      namespce: 'typo',
      image: { pullPolicy: 'Sometimes' },
      agent: {
        terminationGracePeriodSeconds: 5,
        driftInterval: 'often',
        nodeOptions: 'dist/src/agent/main.js --v8-pool-size=1',
        resources: { requests: { memory: '512Mi' }, limits: { memory: '256m' } },
      },
      host: { cniBinDir: 'opt/cni/bin' },
      serviceNetworks: { podInterface: 'eth0', mode: 'bridge' },
      placement: { tolerations: [{ operator: 'Exists', effects: 'NoSchedule' }] },
    });
    const problems = problemsOf(() => parseValues(raw, 'test'));
    for (const expected of [
      /^\(root\)\.namespce: unknown field/,
      /^image\.pullPolicy: must be one of Always, IfNotPresent, Never/,
      /^agent\.terminationGracePeriodSeconds: must be an integer from 30/,
      /^agent\.driftInterval: expected a duration/,
      /^agent\.nodeOptions: must be Node\.js options such as '--v8-pool-size=1'/,
      /^agent\.resources\.limits\.memory: must be a memory quantity/,
      /^host\.cniBinDir: must be an absolute path/,
      /^serviceNetworks\.podInterface: eth0 is the pod's primary/,
      /^serviceNetworks\.mode: must be one of auto, tap, veth/,
      /^placement\.tolerations\[0\]\.effects: unknown field/,
    ]) {
      assert.ok(
        problems.some((p) => expected.test(p)),
        `${String(expected)} in\n${problems.join('\n')}`,
      );
    }
  });

  it('refuses a NODE_OPTIONS flag Node.js does not allow there, which would stop the agent starting', () => {
    const raw = mergeValues(base(), {
      agent: { nodeOptions: '--v8-pool-size=1 --optimize-for-size --max-semi-space-size=8' },
    });
    const problems = problemsOf(() => parseValues(raw, 'test'));
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(
      problems[0] as string,
      /^agent\.nodeOptions: --optimize-for-size is not allowed in NODE_OPTIONS/,
    );
  });

  it('refuses requests above limits', () => {
    const raw = mergeValues(base(), { agent: { resources: { requests: { cpu: '2' } } } });
    assert.deepEqual(
      problemsOf(() => parseValues(raw, 'test')),
      ['agent.resources.requests.cpu: is more than the limit 1'],
    );
  });

  it("checks each node's agent config with the agent's validator, naming the node", () => {
    const raw = base() as { nodes: { hv1: { vpcs: { gateway: string }[] } } };
    const first = raw.nodes.hv1.vpcs[0];
    assert.ok(first);
    first.gateway = '10.9.9.9';
    const problems = problemsOf(() => render(raw));
    assert.deepEqual(problems, [
      'nodes.hv1.vpcs[0].gateway: must be a host address inside one of the subnets',
    ]);
  });

  it('reports a bad service bridge once, as serviceBridge, however many nodes share it', () => {
    const b = base() as { nodes: Record<string, unknown> };
    const raw = mergeValues(b, {
      serviceBridge: { dnsAddress: '10.0.0.53' },
      nodes: { a: b.nodes.hv1, b: b.nodes.hv1 },
    });
    const problems = problemsOf(() => render(raw));
    assert.deepEqual(problems, [
      'serviceBridge.dnsAddress: is not inside the service bridge subnet 169.254.169.0/24',
    ]);
  });

  it('refuses services inside a node config: the bridge is the same everywhere', () => {
    const b = base() as { nodes: { hv1: Record<string, unknown> } };
    b.nodes.hv1.services = { dnsAddress: '169.254.169.53' };
    assert.match(problemsOf(() => parseValues(b, 'test')).join('\n'), /nodes\.hv1\.services: unknown field/);
  });

  it('leaves out the networks of services that are not configured', () => {
    const raw = mergeValues(base(), { serviceBridge: { dnsAddress: null }, examples: { enabled: true } });
    const files = render(raw);
    const names = (file: string) =>
      files.find((f) => f.name === file)?.docs.map((d) => (d.object.metadata as { name: string }).name);
    assert.deepEqual(names('40-service-networks.yaml'), ['vppnet-dhcp', 'vppnet-metadata']);
    assert.deepEqual(names('50-service-examples.yaml'), [
      'vppnet-service-example',
      'vppnet-example-dhcp',
      'vppnet-example-metadata',
    ]);
  });

  const fleetOverlay = () =>
    parseValuesYaml(readFileSync(join(VALUES_DIR, 'fleet.yaml'), 'utf8'), 'fleet.yaml') as Record<
      string,
      unknown
    >;
  const fleet = (etcd: unknown, more: Record<string, unknown> = {}) =>
    mergeValues(mergeValues(base(), fleetOverlay()), { datastore: { etcd }, ...more });
  const agentOf = (raw: unknown) => {
    const ds = render(raw).find((f) => f.name === '30-agent-daemonset.yaml')?.docs[0]?.object as {
      spec: {
        template: { spec: { containers: { env: { name: string }[]; volumeMounts: { name: string }[] }[] } };
      };
    };
    const main = ds.spec.template.spec.containers[0];
    assert.ok(main);
    return { env: main.env.map((e) => e.name), mounts: main.volumeMounts.map((m) => m.name) };
  };

  it('fleet mode: refuses bad etcd settings, each named by its value', () => {
    const problems = problemsOf(() =>
      parseValues(
        fleet({
          endpoints: [
            'etcd-0:2379',
            'http://etcd-1.example.com:2379',
            'https://etcd-2/',
            'https://a:1,https://b:2',
          ],
          prefix: 'vppnet/v1',
          tls: { secretName: null, secretNme: 'typo' },
          user: 'vppnet-agent',
          passwordSecret: { name: null },
        }),
        'test',
      ),
    );
    for (const expected of [
      /^datastore\.etcd\.endpoints\[0\]: must be http\(s\):\/\/HOST:PORT/,
      /^datastore\.etcd\.endpoints\[1\]: is http:\/\/ but datastore\.etcd\.tls\.enabled is true/,
      /^datastore\.etcd\.endpoints\[2\]: must be http\(s\):\/\/HOST:PORT .*: no path/,
      /^datastore\.etcd\.endpoints\[3\]: .*one endpoint per list item/,
      /^datastore\.etcd\.prefix: must start and end with "\/"/,
      /^datastore\.etcd\.tls\.secretNme: unknown field/,
      /^datastore\.etcd\.tls\.secretName: is required when datastore\.etcd\.tls\.enabled is true: a Secret in the namespace with ca\.crt, tls\.crt and tls\.key/,
      /^datastore\.etcd\.passwordSecret\.name: is required when datastore\.etcd\.user is set/,
    ]) {
      assert.ok(
        problems.some((p) => expected.test(p)),
        `${String(expected)} in\n${problems.join('\n')}`,
      );
    }
    assert.equal(problems.length, 8, problems.join('\n'));
  });

  it('fleet mode: refuses etcd beyond loopback without TLS, as the agent would', () => {
    const values = (endpoints: string[]) =>
      fleet({
        endpoints,
        tls: { enabled: false, secretName: null },
        user: null,
        passwordSecret: { name: null },
      });
    assert.deepEqual(
      problemsOf(() => parseValues(values(['http://etcd-1.example.com:2379']), 'test')),
      [
        'datastore.etcd.endpoints[0]: is beyond loopback without TLS: the agent refuses it (records and credentials in clear text); enable datastore.etcd.tls',
      ],
    );
    assert.doesNotThrow(() => parseValues(values(['http://127.0.0.1:2379']), 'test'), 'loopback is accepted');
  });

  it('fleet mode: needs endpoints, and refuses the per-node configs of file mode', () => {
    const b = base();
    const problems = problemsOf(() => parseValues(fleet({ endpoints: [] }, { nodes: b.nodes }), 'test'));
    assert.deepEqual(problems.map((p) => p.split(':')[0]).sort(), ['datastore.etcd.endpoints', 'nodes']);
    assert.match(problems.join('\n'), /nodes: is not used with datastore\.mode etcd .*`nodes: null`/);
    assert.deepEqual(
      problemsOf(() => parseValues(mergeValues(base(), { nodes: null }), 'test')),
      ['nodes: is required with datastore.mode file'],
    );
  });

  it('fleet mode: a password Secret without a user, and TLS settings that contradict each other', () => {
    assert.deepEqual(
      problemsOf(() => parseValues(fleet({ user: null }), 'test')),
      ['datastore.etcd.user: is required when datastore.etcd.passwordSecret is set: whose password it is'],
    );
    const problems = problemsOf(() => parseValues(fleet({ tls: { enabled: false } }), 'test'));
    assert.match(
      problems.join('\n'),
      /datastore\.etcd\.tls\.secretName: is set but datastore\.etcd\.tls\.enabled is false/,
    );
    assert.match(
      problems.join('\n'),
      /datastore\.etcd\.endpoints\[0\]: is https:\/\/ but datastore\.etcd\.tls\.enabled is false/,
    );
  });

  it('fleet mode: without TLS or a user, renders neither their mounts nor their variables', () => {
    const plain = fleet({
      endpoints: ['http://127.0.0.1:2379'],
      tls: { enabled: false, secretName: null },
      user: null,
      passwordSecret: { name: null },
    });
    const { env, mounts } = agentOf(plain);
    // NODE_OPTIONS: the default values' agent.nodeOptions, in either mode.
    assert.deepEqual(env, [FLEET_ENV.nodeName, FLEET_ENV.endpoints, FLEET_ENV.prefix, 'NODE_OPTIONS']);
    assert.equal(mounts.includes('etcd-tls'), false);
    const full = agentOf(mergeValues(base(), fleetOverlay()));
    assert.deepEqual(full.env, [...Object.values(FLEET_ENV), 'NODE_OPTIONS']);
    assert.ok(full.mounts.includes('etcd-tls'));
  });

  it('fleet mode with perNodeUsers: each agent logs in as its own node, with its own password file', () => {
    const raw = fleet({
      user: null,
      passwordSecret: { name: null },
      perNodeUsers: { secretName: 'vppnet-etcd-users' },
    });
    const ds = render(raw).find((f) => f.name === '30-agent-daemonset.yaml')?.docs[0]?.object as {
      spec: {
        template: {
          spec: {
            containers: {
              args: string[];
              env: { name: string; value?: string; valueFrom?: unknown }[];
              volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
            }[];
            volumes: { name: string; secret?: { secretName: string; defaultMode: number } }[];
          };
        };
      };
    };
    const pod = ds.spec.template.spec;
    const main = pod.containers[0];
    assert.ok(main);
    assert.deepEqual(pod.volumes.find((v) => v.name === 'etcd-users')?.secret, {
      secretName: 'vppnet-etcd-users',
      defaultMode: 0o400,
    });
    assert.deepEqual(
      main.volumeMounts.find((m) => m.name === 'etcd-users'),
      {
        name: 'etcd-users',
        mountPath: ETCD_USERS_MOUNT_DIR,
        readOnly: true,
      },
    );
    assert.equal(
      main.env.find((e) => e.name === FLEET_ENV.password),
      undefined,
      'no shared password',
    );
    // As the kubelet runs it on node hv7: $(VPPNET_NODE_NAME) expanded in the env and the args,
    // the Secret's key hv7 a file in the mount. The agent's own parser must take both.
    const dir = mkdtempSync(join(tmpdir(), 'vppnet-users-'));
    try {
      writeFileSync(join(dir, 'hv7'), 'pw-of-hv7\n');
      const expand = (text: string): string =>
        text.replaceAll(`$(${FLEET_ENV.nodeName})`, 'hv7').replace(ETCD_USERS_MOUNT_DIR, dir);
      const env: NodeJS.ProcessEnv = {};
      for (const e of main.env) {
        if (e.value !== undefined) env[e.name] = expand(e.value);
        else if (e.name === FLEET_ENV.nodeName) env[e.name] = 'hv7';
      }
      const flags = parseAgentFlags(main.args.map(expand), env);
      assert.ok(typeof flags === 'object' && flags.etcd, 'fleet mode');
      const etcd = etcdOptionsOf(flags.etcd.connection, AGENT_CONNECTION_FLAGS, {
        ...env,
        // TLS files are another test's concern (manifests.test.ts): leave them out here.
        [FLEET_ENV.ca]: undefined,
        [FLEET_ENV.cert]: undefined,
        [FLEET_ENV.key]: undefined,
      });
      assert.deepEqual(etcd.auth, { user: 'vppnet-hv7', password: 'pw-of-hv7' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.deepEqual(
      problemsOf(() => parseValues(fleet({ perNodeUsers: { secretName: 'u' } }), 'test')),
      [
        'datastore.etcd.perNodeUsers: and datastore.etcd.user are exclusive: one user for every agent, or one per node',
      ],
    );
  });

  it('values without a datastore section are file mode; etcd mode defaults to TLS and /vppnet/v1/', () => {
    const b = base();
    delete b.datastore;
    assert.deepEqual(parseValues(b, 'test').datastore, { mode: 'file' });
    const raw = mergeValues(b, {
      datastore: { mode: 'etcd', etcd: { endpoints: ['https://etcd.example.com:2379'] } },
      nodes: null,
    });
    assert.deepEqual(
      problemsOf(() => parseValues(raw, 'test')),
      [
        'datastore.etcd.tls.secretName: is required when datastore.etcd.tls.enabled is true: a Secret in the namespace with ca.crt, tls.crt and tls.key (kubernetes.io/tls plus ca.crt, as cert-manager issues it)',
      ],
    );
    const withSecret = mergeValues(raw, { datastore: { etcd: { tls: { secretName: 'etcd-client' } } } });
    const v = parseValues(withSecret, 'test');
    assert.equal(v.datastore.mode === 'etcd' && v.datastore.etcd.prefix, '/vppnet/v1/');
  });

  it('fleet mode: checks the service bridge on its own, named serviceBridge', () => {
    const raw = fleet({}, { serviceBridge: { dnsAddress: '10.0.0.53' } });
    assert.deepEqual(
      problemsOf(() => render(raw)),
      ['serviceBridge.dnsAddress: is not inside the service bridge subnet 169.254.169.0/24'],
    );
  });

  it('parses Kubernetes quantities', () => {
    assert.equal(parseQuantity('256Mi', 'memory'), 256 * 2 ** 20);
    assert.equal(parseQuantity('150M', 'memory'), 150e6);
    assert.equal(parseQuantity('50m', 'cpu'), 0.05);
    assert.equal(parseQuantity('1', 'cpu'), 1);
    assert.equal(parseQuantity('256m', 'memory'), undefined, 'millibytes are a typo');
    assert.equal(parseQuantity('1Gi', 'cpu'), undefined);
    assert.equal(parseQuantity('lots', 'memory'), undefined);
  });
});
