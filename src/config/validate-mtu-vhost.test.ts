/** Config validation of the tenant MTU against the underlay, and of vhost-user sockets and their modes. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AgentConfig } from './model.js';
import { validateConfig } from './validate.js';
import { base, problems, type RawConfig } from './testing/raw-config.js';

describe('config validation: MTU and vhost-user sockets', () => {
  const one = (edit: (c: RawConfig) => void): AgentConfig => {
    const c = base();
    edit(c);
    return validateConfig(c);
  };

  it('derives the tenant MTU from the underlay: 1500 − 40 by default, the underlay − 40 when set', () => {
    assert.equal(one(() => undefined).node.underlay.mtu, 1500);
    assert.equal(one(() => undefined).vpcs[0]?.mtu, 1460);
    assert.equal(one((c) => (c.node.underlay.mtu = 9000)).vpcs[0]?.mtu, 8960);
    assert.equal(one((c) => (c.vpcs[0]!.mtu = 1400)).vpcs[0]?.mtu, 1400);
  });

  it('refuses a VPC MTU that does not fit the underlay, naming both', () => {
    const p = problems((c) => {
      c.node.underlay.mtu = 1500;
      c.vpcs[0]!.mtu = 1500;
    });
    assert.equal(p.length, 1);
    assert.equal(p[0]?.path, 'vpcs[0].mtu');
    assert.match(p[0].message, /does not fit the underlay: node\.underlay\.mtu 1500 − 40 .* leaves 1460/);
    assert.deepEqual(
      problems((c) => (c.vpcs[0]!.mtu = 500)).map((x) => x.path),
      ['vpcs[0].mtu'],
    );
    assert.deepEqual(
      problems((c) => (c.node.underlay.mtu = 1279)).map((x) => x.path),
      ['node.underlay.mtu'],
    );
  });

  it('gives vhost-user sockets the node defaults, and a port its own', () => {
    const cfg = one((c) => {
      c.node.vhostUser = { gid: 107, mode: '0660' };
      c.ports.push({
        name: 'vm2',
        vpc: 'vpc-a',
        mac: '52:54:00:00:00:06',
        ip: '10.0.0.6',
        attach: { type: 'vhost-user', socket: '/run/vppnet/vhost/vm2.sock', uid: 64055, mode: '0600' },
      });
    });
    assert.deepEqual(cfg.node.vhostUser, {
      uid: undefined,
      gid: 107,
      mode: 0o660,
      directoryMode: 0o755,
      directory: '/run/vppnet/vhost',
    });
    const [vm1, vm2] = cfg.ports.map((p) => (p.attach.type === 'vhost-user' ? p.attach.access : undefined));
    assert.deepEqual(vm1, { uid: undefined, gid: 107, mode: 0o660 });
    assert.deepEqual(vm2, { uid: 64055, gid: 107, mode: 0o600 });
  });

  it('refuses modes YAML would misread, user names and bad socket paths, each by field', () => {
    const p = problems((c) => {
      c.node.vhostUser = { mode: 660, uid: 'libvirt-qemu', directoryMode: '0999' };
      c.ports[0]!.attach = { type: 'vhost-user', socket: '/run/vppnet/../vm1.sock', gid: 'kvm' };
    });
    const byPath = new Map(p.map((x) => [x.path, x.message]));
    assert.match(byPath.get('node.vhostUser.mode') ?? '', /quoted octal string .*decimal/);
    assert.match(byPath.get('node.vhostUser.uid') ?? '', /must be a number.*id -u/);
    assert.match(byPath.get('node.vhostUser.directoryMode') ?? '', /octal mode/);
    assert.match(byPath.get('ports[0].attach.socket') ?? '', /normalized/);
    assert.match(byPath.get('ports[0].attach.gid') ?? '', /must be a number/);
    assert.match(
      problems((c) => (c.ports[0]!.attach = { type: 'vhost-user', socket: `/${'x'.repeat(120)}.sock` }))[0]
        ?.message ?? '',
      /longer than a Unix socket path/,
    );
  });

  it("keeps every socket inside the node's socket directory, where VPP may replace files", () => {
    const socketProblem = (socket: string, directory?: string): string | undefined =>
      problems((c) => {
        if (directory !== undefined) c.node.vhostUser = { directory };
        c.ports[0]!.attach = { type: 'vhost-user', socket };
      }).find((x) => x.path === 'ports[0].attach.socket')?.message;
    for (const hostFile of [
      '/run/containerd/containerd.sock',
      '/run/vpp/api.sock',
      '/run/vppnet/vhost.sock', // a sibling with the directory's name as its prefix
      '/run/vppnet/vhost',
    ])
      assert.match(
        socketProblem(hostFile) ?? '',
        /outside the node's vhost-user socket directory \/run\/vppnet\/vhost/,
        hostFile,
      );
    assert.equal(socketProblem('/run/vppnet/vhost/vm1.sock'), undefined);
    assert.equal(
      socketProblem('/run/vppnet/vhost/tenant-7/vm1.sock'),
      undefined,
      'subdirectories are inside',
    );
    assert.equal(socketProblem('/srv/vms/vm1.sock', '/srv/vms'), undefined, 'a directory of its own');
    assert.match(socketProblem('/run/vppnet/vhost/vm1.sock', '/srv/vms') ?? '', /outside .* \/srv\/vms/);
    for (const bad of ['srv/vms', '/srv/vms/', '/srv/../vms', '/'])
      assert.equal(
        problems((c) => (c.node.vhostUser = { directory: bad }))[0]?.path,
        'node.vhostUser.directory',
        bad,
      );
  });

  it('refuses a socket mode that lets other users, or anyone with execute, reach a VM', () => {
    for (const mode of ['0666', '0662', '0670', '0770', '0700', '0777']) {
      const p = problems((c) => {
        c.node.vhostUser = { mode };
        c.ports[0]!.attach = { type: 'vhost-user', socket: '/run/vppnet/vhost/vm1.sock', mode };
      });
      assert.deepEqual(
        p.map((x) => x.path),
        ['node.vhostUser.mode', 'ports[0].attach.mode'],
        mode,
      );
      assert.match(p[0]?.message ?? '', /more than 0660/);
    }
    for (const mode of ['0660', '0600', '0640', '0620'])
      assert.deepEqual(
        problems((c) => (c.node.vhostUser = { mode })),
        [],
        mode,
      );
  });

  it('treats two ports on one socket as one attachment whatever their access', () => {
    const p = problems((c) => {
      c.ports.push({
        name: 'vm2',
        vpc: 'vpc-a',
        mac: '52:54:00:00:00:06',
        ip: '10.0.0.6',
        attach: { type: 'vhost-user', socket: '/run/vppnet/vhost/vm1.sock', mode: '0600' },
      });
    });
    assert.deepEqual(
      p.map((x) => x.path),
      ['ports[1].attach'],
    );
  });
});
