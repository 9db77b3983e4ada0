/**
 * vppnet datastore put/delete against a real etcd: --dry-run writes nothing, and a records file
 * that is broken or empty is refused naming the file, before etcd is contacted.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ETCD_BINARY, freePort } from '../datastore/testing/etcd-server.js';
import { RecordError } from '../datastore/records.js';
import { runCli, startCliEtcd, type CliEtcd } from './testing/cli-etcd.js';

const skip = existsSync(ETCD_BINARY) ? false : `no etcd at ${ETCD_BINARY} (apt-get install etcd-server)`;

const HV2 = [
  'nodes:',
  '  hv2:',
  '    underlay: { interface: memif1/0, address: 2001:db8::2/64, gateway: 2001:db8::1 }',
  '    srv6: { locator: fc00:2::/48 }',
  'vpcs:',
  '  vpc-a: { id: 10, subnets: [10.0.0.0/24], gateway: 10.0.0.1 }',
  '',
].join('\n');

describe('vppnet datastore writes', { skip }, () => {
  let etcd: CliEtcd;
  let env: NodeJS.ProcessEnv;
  let file: (name: string, text: string) => string;
  /** Everything under the test's prefix, as get prints it minus its revision header. */
  const records = async (): Promise<string> =>
    (await runCli(['datastore', 'get'], env)).out.replace(/^# .* at revision \d+, /, '# ');
  before(async () => {
    etcd = await startCliEtcd('/writes/v1/');
    env = etcd.env;
    file = (name, text) => {
      const f = path.join(etcd.dir, name);
      writeFileSync(f, text);
      return f;
    };
  });
  after(() => etcd?.stop());

  test('put --dry-run validates and prints the records, and writes nothing', async () => {
    const f = file('hv2.yaml', HV2);
    const dry = await runCli(['datastore', 'put', '-f', f, '--dry-run'], env);
    assert.equal(dry.code, 0);
    assert.match(dry.out, /^nodes:\n {2}hv2:\n/);
    assert.match(dry.out, /vpcs:\n {2}vpc-a:\n/);
    assert.match(dry.out, /\nwould write 2 records and delete 0 \(dry run: nothing written\)\n$/);
    assert.equal(await records(), '# 0 records\n{}\n', 'nothing written');
    // An invalid file is refused in a dry run as in a real one.
    const bad = file('bad.yaml', 'vpcs:\n  vpc-b: { id: 11, subnets: [10.1.0.7/24], gateway: 10.1.0.1 }\n');
    await assert.rejects(runCli(['datastore', 'put', '-f', bad, '--dry-run'], env), /host bits set/);
  });

  test('delete --dry-run names the keys it would delete, and deletes nothing', async () => {
    const f = file('hv2-put.yaml', HV2);
    assert.equal((await runCli(['datastore', 'put', '-f', f], env)).code, 0);
    const before = await records();
    assert.match(before, /# 2 records/);
    const dry = await runCli(['datastore', 'delete', 'vpcs/vpc-a', 'nodes/hv2', '--dry-run'], env);
    assert.deepEqual(dry, {
      code: 0,
      out:
        '# would delete /writes/v1/vpcs/vpc-a\n# would delete /writes/v1/nodes/hv2\n' +
        'would write 0 records and delete 2 (dry run: nothing written)\n',
    });
    assert.equal(await records(), before, 'nothing deleted');
    await assert.rejects(
      runCli(['datastore', 'delete', 'endpoints/vpc-a/10.0.0.300_32', '--dry-run'], env),
      (err: unknown) => err instanceof RecordError,
    );
  });

  test('an empty records file is refused naming it, without contacting etcd', async () => {
    // Nothing listens at this endpoint: contacting it would fail differently, after 5 s.
    const nowhere = { ...env, VPPNET_ETCD_ENDPOINTS: `http://127.0.0.1:${await freePort()}` };
    for (const [name, text] of [
      ['empty.yaml', ''],
      ['comments.yaml', '# nothing but a comment\n'],
      ['empty-sections.yaml', 'nodes: {}\nports: {}\n'],
    ] as const) {
      const f = file(name, text);
      await assert.rejects(runCli(['datastore', 'put', '-f', f], nowhere), (err: unknown) => {
        assert.ok(err instanceof RecordError, String(err));
        assert.ok(err.message.includes(`${f}: (file): holds no records`), err.message);
        return true;
      });
    }
  });

  test('a YAML syntax error names the file, line and column, and writes nothing', async () => {
    const before = await records();
    const f = file('broken.yaml', 'vpcs:\n  vpc-c: { id: 12,\n    subnets: [10.2.0.0/24\n');
    await assert.rejects(runCli(['datastore', 'put', '-f', f], env), (err: unknown) => {
      assert.ok(err instanceof RecordError, String(err));
      assert.match(
        err.message,
        new RegExp(`\\n {2}${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4:1: \\(yaml\\): `),
      );
      return true;
    });
    assert.equal(await records(), before);
  });
});
