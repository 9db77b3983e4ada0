/** vppnet plan/status --datastore etcd: the node's config as its agent derives it, from a real etcd. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startVppTarget } from '../../test/support/vpp-target.js';
import { KeySchema } from '../datastore/keys.js';
import { ETCD_BINARY, freePort } from '../datastore/testing/etcd-server.js';
import { DatastoreConfigError, nodeConfigFromDatastore } from './datastore-config.js';
import { runCli, startCliEtcd, type CliEtcd } from './testing/cli-etcd.js';
import { CliUsageError, EXAMPLE_CONFIG } from './vppnet.js';

const skip = existsSync(ETCD_BINARY) ? false : `no etcd at ${ETCD_BINARY} (apt-get install etcd-server)`;

test('plan: the datastore flags are refused without --datastore etcd, and with --config', async () => {
  const usage = (pattern: RegExp) => (err: unknown) => {
    assert.ok(err instanceof CliUsageError, String(err));
    assert.match(err.message, pattern);
    return true;
  };
  await assert.rejects(
    runCli(['plan', '--node-name', 'hv1'], {}),
    usage(/--node-name goes with --datastore etcd/),
  );
  await assert.rejects(
    runCli(['plan', '--endpoints', 'http://127.0.0.1:1'], {}),
    usage(/--endpoints goes with --datastore etcd/),
  );
  await assert.rejects(
    runCli(['plan', '--datastore', 'etcd', '--config', EXAMPLE_CONFIG, '--node-name', 'hv1'], {}),
    usage(/--config and --datastore etcd are two sources of desired state/),
  );
  await assert.rejects(
    runCli(['plan', '--datastore', 'etcd'], {}),
    usage(/needs --node-name \(or VPPNET_NODE_NAME\)/),
  );
  await assert.rejects(
    runCli(['plan', '--datastore', 'etcd', '--node-name', 'hv/1'], {}),
    usage(/--node-name: 'hv\/1' is not a Kubernetes node name \(lowercase RFC 1123\)/),
  );
  await assert.rejects(
    runCli(['plan', '--datastore', 'consul'], {}),
    usage(/must be file or etcd, got 'consul'/),
  );
  await assert.rejects(
    runCli(['status', '--datastore', 'etcd', '--node-name', 'hv1', '--cert', 'c.pem'], {}),
    usage(/--etcd-cert and --etcd-key go together/),
  );
  // The agent's VPPNET_DATASTORE does not override an explicit --config.
  const { code, out } = await runCli(['plan', '--config', EXAMPLE_CONFIG], { VPPNET_DATASTORE: 'etcd' });
  assert.equal(code, 0);
  assert.match(out, /hypervisor-1\.yaml against a fresh VPP/);
});

test('an unreachable etcd is an error naming it, after the listing timeout', async () => {
  const port = await freePort();
  await assert.rejects(
    nodeConfigFromDatastore(
      { store: { endpoints: [`127.0.0.1:${port}`] }, schema: new KeySchema('/x/v1/'), insecureEndpoints: [] },
      'hv1',
      300,
    ),
    (err: unknown) => {
      assert.ok(err instanceof DatastoreConfigError, String(err));
      assert.match(
        err.message,
        new RegExp(
          `node hv1's records not listed from etcd 127\\.0\\.0\\.1:${port} under /x/v1/ within 0\\.3 s`,
        ),
      );
      return true;
    },
  );
});

describe('vppnet plan --datastore etcd', { skip }, () => {
  let etcd: CliEtcd;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    etcd = await startCliEtcd('/plan/v1/');
    ({ dir, env } = etcd);
    const hv2 = path.join(dir, 'hv2.yaml');
    writeFileSync(
      hv2,
      [
        'nodes:',
        '  hv2:',
        '    underlay: { interface: memif1/0, address: 2001:db8::2/64, gateway: 2001:db8::1 }',
        '    srv6: { locator: fc00:2::/48 }',
      ].join('\n'),
    );
    assert.equal((await runCli(['datastore', 'put', '-f', hv2], env)).code, 0);
    assert.equal((await runCli(['datastore', 'import', '--config', EXAMPLE_CONFIG], env)).code, 0);
  });
  after(() => etcd?.stop());

  test('the records imported from a node file plan exactly what the file plans', async () => {
    const fromFile = JSON.parse(
      (await runCli(['plan', '--config', EXAMPLE_CONFIG, '--json'], {})).out,
    ) as unknown;
    const fromStore = await runCli(['plan', '--datastore', 'etcd', '--node-name', 'hv1', '--json'], env);
    assert.equal(fromStore.code, 0);
    assert.deepEqual(JSON.parse(fromStore.out), fromFile);
    // The agent's own environment variables name the source too.
    const viaEnv = await runCli(['plan'], { ...env, VPPNET_DATASTORE: 'etcd', VPPNET_NODE_NAME: 'hv1' });
    assert.match(viaEnv.out, /^vppnet plan: node hv1 from etcd .* under \/plan\/v1\/ against a fresh VPP/);
    assert.match(viaEnv.out, /create {2}sr-steering:ip4:10:10\.0\.0\.7\/32/);
  });

  test('a record the derivation leaves out is a note; the rest is planned', async () => {
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      [
        'ports:',
        '  hv1:',
        '    vm9: { vpc: vpc-a, mac: 52:54:00:00:0a:99, ip: 10.9.9.9, attach: { type: veth, netns: vm9, ifname: eth0 } }',
      ].join('\n'),
    );
    assert.equal((await runCli(['datastore', 'put', '-f', bad], env)).code, 0);
    const { code, out } = await runCli(['plan', '--datastore', 'etcd', '--node-name', 'hv1'], env);
    assert.equal(code, 0);
    assert.match(
      out,
      /\nnote: left out: \/plan\/v1\/ports\/hv1\/vm9: ip: is not a host address in a subnet of VPC vpc-a\n/,
    );
    assert.doesNotMatch(out, /create .*vm9/);
    assert.match(out, /create {2}sr-steering:ip4:10:10\.0\.0\.7\/32/, 'the other records still apply');
    const json = JSON.parse(
      (await runCli(['plan', '--datastore', 'etcd', '--node-name', 'hv1', '--json'], env)).out,
    ) as {
      notes?: string[];
    };
    assert.equal(json.notes?.length, 1);
  });

  test('status reads a live VPP against the records, and points at plan with the same source', async () => {
    const target = await startVppTarget();
    try {
      const args = ['status', '--datastore', 'etcd', '--node-name', 'hv1', '--vpp', target.socketPath];
      const { code, out } = await runCli(args, { ...env, VPPNET_STATE_DIR: path.join(dir, 'no-state') });
      assert.equal(code, 0);
      assert.match(out, /\nconfig node hv1 from etcd .* under \/plan\/v1\/\n/);
      assert.match(out, /\nnote: left out: \/plan\/v1\/ports\/hv1\/vm9: /);
      assert.match(
        out,
        new RegExp(
          `\\n\\d+ operations away from the config \\(see vppnet plan --datastore etcd --node-name hv1 --vpp ${target.socketPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)\\n$`,
        ),
      );
    } finally {
      await target.close();
    }
  });

  test('a node without a record has no config: an error naming the key', async () => {
    await assert.rejects(
      runCli(['plan', '--datastore', 'etcd', '--node-name', 'hv9'], env),
      (err: unknown) => {
        assert.ok(err instanceof DatastoreConfigError, String(err));
        assert.match(
          err.message,
          /no config for node hv9 from etcd .* under \/plan\/v1\/: \/plan\/v1\/nodes\/hv9: \(record\): is missing/,
        );
        return true;
      },
    );
  });
});
