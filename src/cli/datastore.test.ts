/** vppnet datastore against a real etcd (Debian's etcd-server), through the CLI's main. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ETCD_BINARY } from '../datastore/testing/etcd-server.js';
import { RecordError } from '../datastore/records.js';
import { DatastoreUsageError } from './datastore.js';
import { runCli, startCliEtcd, type CliEtcd } from './testing/cli-etcd.js';
import { EXAMPLE_CONFIG } from './vppnet.js';

const skip = existsSync(ETCD_BINARY) ? false : `no etcd at ${ETCD_BINARY} (apt-get install etcd-server)`;

test('vppnet datastore: a connection setting error is a usage error naming its flag', async () => {
  await assert.rejects(runCli(['datastore', 'get', '--cert', 'c.pem'], {}), (err: unknown) => {
    assert.ok(err instanceof DatastoreUsageError, String(err));
    assert.equal(err.message, 'datastore get: --etcd-cert and --etcd-key go together');
    return true;
  });
});

describe('vppnet datastore', { skip }, () => {
  let etcd: CliEtcd;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    etcd = await startCliEtcd('/cli/v1/');
    ({ dir, env } = etcd);
  });
  after(() => etcd?.stop());

  test('--help documents the key schema', async () => {
    const { code, out } = await runCli(['datastore', '--help'], {});
    assert.equal(code, 0);
    for (const s of ['nodes/NODE', 'vpcs/VPC', 'ports/NODE/PORT', 'endpoints/VPC/A.B.C.D_LEN', 'sidIndex'])
      assert.ok(out.includes(s), s);
  });

  test('import of the example refuses its remote routes until hv2 exists, then put, get, delete', async () => {
    await assert.rejects(runCli(['datastore', 'import', '--config', EXAMPLE_CONFIG], env), (err: unknown) => {
      assert.ok(err instanceof RecordError);
      assert.match(
        err.message,
        /\/cli\/v1\/endpoints\/vpc-a\/10\.0\.0\.7_32: remoteRoutes\[0\]\.sid: fc00:2::a is in no node's locator/,
      );
      return true;
    });
    assert.match(
      (await runCli(['datastore', 'get'], env)).out,
      /0 records/,
      'nothing written by the refused import',
    );

    const file = path.join(dir, 'hv2.yaml');
    writeFileSync(
      file,
      [
        'nodes:',
        '  hv2:',
        '    underlay: { interface: memif1/0, address: 2001:db8::2/64, gateway: 2001:db8::1 }',
        '    srv6: { locator: fc00:2::/48 }',
      ].join('\n'),
    );
    assert.deepEqual(await runCli(['datastore', 'put', '-f', file], env), {
      code: 0,
      out: 'wrote 1 records in one transaction\n',
    });
    const imported = await runCli(['datastore', 'import', '--config', EXAMPLE_CONFIG], env);
    assert.equal(imported.code, 0);
    const got = await runCli(['datastore', 'get', 'endpoints/vpc-a/'], env);
    assert.match(got.out, /10\.0\.0\.5\/32: hv1/);
    assert.match(got.out, /10\.0\.0\.7\/32: hv2/);

    assert.equal((await runCli(['datastore', 'delete', 'endpoints/vpc-a/10.0.0.7_32'], env)).code, 0);
    assert.doesNotMatch((await runCli(['datastore', 'get', 'endpoints/vpc-a/'], env)).out, /10\.0\.0\.7/);
  });

  test('put -f moves a VM in one transaction: null deletes its old port; a bad key changes nothing', async () => {
    const move = path.join(dir, 'move.yaml');
    const ports = (await runCli(['datastore', 'get', 'ports/'], env)).out;
    assert.match(ports, /hv1:\n\s+vm1:/, 'the imported example has hv1/vm1');
    writeFileSync(
      move,
      [
        'ports:',
        '  hv1: { vm1: null }',
        '  hv2:',
        '    vm1: { vpc: vpc-a, mac: 52:54:00:00:00:05, ip: 10.0.0.5, attach: { type: vhost-user, socket: /run/vppnet/vhost/vm1.sock } }',
        'endpoints:',
        '  vpc-a: { 10.0.0.5/32: hv2 }',
      ].join('\n'),
    );
    assert.deepEqual(await runCli(['datastore', 'put', '-f', move], env), {
      code: 0,
      out: 'wrote 2 records and deleted 1 in one transaction\n',
    });
    const after = (await runCli(['datastore', 'get'], env)).out;
    assert.doesNotMatch(after, /hv1:\n\s+vm1:/);
    assert.match(after, /hv2:\n\s+vm1:/);
    assert.match(after, /10\.0\.0\.5\/32: hv2/);

    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      ['ports:', '  hv2: { vm1: null }', 'endpoints:', '  vpc-a: { 10.0.0.300/32: null }'].join('\n'),
    );
    await assert.rejects(
      runCli(['datastore', 'put', '-f', bad], env),
      /10\.0\.0\.300_32: \(key\): must end in an IPv4 prefix/,
    );
    assert.match((await runCli(['datastore', 'get', 'ports/'], env)).out, /hv2:\n\s+vm1:/, 'nothing deleted');
  });
});
