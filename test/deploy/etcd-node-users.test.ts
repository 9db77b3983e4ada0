/**
 * deploy/etcd/node-users.sh against a real etcd with auth on: each node's user reads the prefix and
 * nothing else, writes nothing, and after a rotation only the new password works.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT } from '../../deploy/render/overlays.js';
import { ETCD_BINARY, EtcdServer } from '../../src/datastore/testing/etcd-server.js';

const SCRIPT = path.join(REPO_ROOT, 'deploy', 'etcd', 'node-users.sh');
const has = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const skip = !existsSync(ETCD_BINARY)
  ? `no etcd at ${ETCD_BINARY}`
  : !has('etcdctl') || !has('openssl')
    ? 'needs etcdctl (etcd-client) and openssl'
    : false;

describe('deploy/etcd/node-users.sh', { skip }, () => {
  let etcd: EtcdServer;
  let dir: string;
  const admin = (): NodeJS.ProcessEnv => ({
    ...process.env,
    ETCDCTL_API: '3',
    ETCDCTL_ENDPOINTS: etcd.endpoint,
    ETCDCTL_USER: 'root:rootpw',
  });
  const etcdctl = (user: string | undefined, ...args: string[]): { ok: boolean; out: string } => {
    const env = { ...admin(), ...(user === undefined ? {} : { ETCDCTL_USER: user }) };
    const r = spawnSync('etcdctl', args, { env, encoding: 'utf8' });
    return { ok: r.status === 0, out: `${r.stdout}${r.stderr}` };
  };
  const script = (...args: string[]): { code: number | null; out: string } => {
    const r = spawnSync('bash', [SCRIPT, ...args], { env: admin(), encoding: 'utf8' });
    return { code: r.status, out: `${r.stdout}${r.stderr}` };
  };

  before(async () => {
    etcd = await EtcdServer.start();
    dir = mkdtempSync(path.join(tmpdir(), 'vppnet-etcd-users-'));
    const env = { ...process.env, ETCDCTL_API: '3', ETCDCTL_ENDPOINTS: etcd.endpoint };
    for (const args of [
      ['user', 'add', 'root', '--interactive=false'],
      ['user', 'grant-role', 'root', 'root'],
      ['auth', 'enable'],
    ])
      assert.equal(spawnSync('etcdctl', args, { env, input: 'rootpw\n' }).status, 0, args.join(' '));
    assert.ok(etcdctl(undefined, 'put', '/vppnet/v1/nodes/hv1', '{}').ok);
    assert.ok(etcdctl(undefined, 'put', '/other/secret', 'x').ok);
  });
  after(async () => {
    await etcd.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a read-only user per node, its password only in a 0600 file', () => {
    const r = script('create', '--out', dir, 'hv1', 'ip-10-0-0-2.eu-west-1.compute.internal');
    assert.equal(r.code, 0, r.out);
    const pw = readFileSync(path.join(dir, 'hv1'), 'utf8');
    assert.ok(pw.length >= 40);
    assert.ok(!r.out.includes(pw), 'the password is not printed');
    assert.equal(statSync(path.join(dir, 'hv1')).mode & 0o777, 0o600);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    const hv1 = `vppnet-hv1:${pw}`;
    const read = etcdctl(hv1, 'get', '--prefix', '/vppnet/v1/', '--keys-only');
    assert.ok(read.ok && read.out.includes('/vppnet/v1/nodes/hv1'), read.out);
    assert.ok(!etcdctl(hv1, 'put', '/vppnet/v1/nodes/hv1', '{"x":1}').ok, 'no writes');
    assert.ok(!etcdctl(hv1, 'get', '/other/secret').ok, 'nothing outside the prefix');
    const other = readFileSync(path.join(dir, 'ip-10-0-0-2.eu-west-1.compute.internal'), 'utf8');
    assert.notEqual(other, pw, 'a password per node');
  });

  it('refuses to create a user twice, and a name that is not a node name', () => {
    assert.equal(script('create', '--out', dir, 'hv1').code, 1);
    const bad = script('create', '--out', dir, '../etc/passwd');
    assert.equal(bad.code, 2);
    assert.match(bad.out, /not a Kubernetes node name/);
  });

  it('rotates a password: the old one stops working, the new one reads', () => {
    const old = readFileSync(path.join(dir, 'hv1'), 'utf8');
    const r = script('rotate', '--out', dir, 'hv1');
    assert.equal(r.code, 0, r.out);
    const now = readFileSync(path.join(dir, 'hv1'), 'utf8');
    assert.notEqual(now, old);
    assert.ok(!etcdctl(`vppnet-hv1:${old}`, 'get', '/vppnet/v1/nodes/hv1').ok, 'the old password');
    assert.ok(etcdctl(`vppnet-hv1:${now}`, 'get', '/vppnet/v1/nodes/hv1').ok, 'the new password');
  });

  it('deletes a leaving node’s user', () => {
    const pw = readFileSync(path.join(dir, 'hv1'), 'utf8');
    assert.equal(script('delete', 'hv1').code, 0);
    assert.ok(!etcdctl(`vppnet-hv1:${pw}`, 'get', '/vppnet/v1/nodes/hv1').ok);
  });
});
