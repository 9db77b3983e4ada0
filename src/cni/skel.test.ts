import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { CniError } from './errors.js';
import type { CniResult } from './result.js';
import type { CmdArgs, CniCommand, CniHandlers } from './skel.js';
import { runPlugin } from './testing/run-plugin.js';
import { SUPPORTED_CNI_VERSIONS } from './version.js';

const RESULT: CniResult = {
  interfaces: [{ name: 'eth1', mac: '02:00:00:00:00:02', mtu: 1400, sandbox: '/var/run/netns/pod' }],
  ips: [{ address: '169.254.169.103/24', gateway: '169.254.169.1', interface: 0 }],
  routes: [{ dst: '169.252.252.0/24', gw: '169.254.169.1' }],
  dns: {},
};

/** Handlers that record what skel handed them and answer with RESULT (or throw `failWith`). */
function recordingHandlers(failWith?: Error): { handlers: CniHandlers; seen: CmdArgs[] } {
  const seen: CmdArgs[] = [];
  const run = (args: CmdArgs): Promise<void> => {
    seen.push(args);
    return failWith === undefined ? Promise.resolve() : Promise.reject(failWith);
  };
  return {
    seen,
    handlers: {
      add: async (args) => {
        await run(args);
        return RESULT;
      },
      del: run,
      check: run,
      gc: run,
      status: run,
    },
  };
}

function envFor(command: CniCommand | undefined, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...(command !== undefined && { CNI_COMMAND: command }),
    CNI_CONTAINERID: 'c0ffee',
    CNI_NETNS: '/var/run/netns/pod',
    CNI_IFNAME: 'eth1',
    CNI_PATH: '/opt/cni/bin:/usr/lib/cni',
    ...extra,
  };
}

const config = (cniVersion: string): object => ({
  cniVersion,
  name: 'services',
  type: 'vppnet-cni',
  ipam: { type: 'static' },
});

void describe('runCni environment table', () => {
  void it('reports a missing CNI_COMMAND with code 4', async () => {
    const run = await runPlugin(recordingHandlers().handlers, {}, config('1.1.0'));
    assert.equal(run.exitCode, 1);
    assert.equal(run.output?.['code'], 4);
    assert.match(String(run.output?.['msg']), /CNI_COMMAND/);
  });

  void it('reports an unknown command with code 4', async () => {
    const run = await runPlugin(
      recordingHandlers().handlers,
      envFor(undefined, { CNI_COMMAND: 'FROB' }),
      config('1.1.0'),
    );
    assert.equal(run.output?.['code'], 4);
    assert.match(String(run.output?.['msg']), /unknown CNI_COMMAND: FROB/);
  });

  void it('lists every variable ADD is missing in one error', async () => {
    const { handlers, seen } = recordingHandlers();
    const run = await runPlugin(handlers, { CNI_COMMAND: 'ADD' }, config('1.1.0'));
    assert.equal(run.exitCode, 1);
    assert.equal(run.output?.['code'], 4);
    assert.equal(
      run.output?.['msg'],
      'required env variables [CNI_CONTAINERID,CNI_NETNS,CNI_IFNAME,CNI_PATH] missing',
    );
    assert.equal(seen.length, 0);
  });

  void it('reports missing and invalid variables together', async () => {
    const run = await runPlugin(
      recordingHandlers().handlers,
      {
        CNI_COMMAND: 'ADD',
        CNI_IFNAME: 'a-name-far-too-long',
        CNI_ARGS: 'NOEQUALS',
        CNI_NETNS: 'relative/ns',
      },
      config('1.1.0'),
    );
    assert.equal(run.output?.['code'], 4);
    const msg = String(run.output?.['msg']);
    assert.match(msg, /\[CNI_CONTAINERID,CNI_PATH\] missing/);
    assert.match(msg, /invalid env variables \[CNI_NETNS,CNI_IFNAME,CNI_ARGS\]/);
    assert.match(String(run.output?.['details']), /longer than 15/);
  });

  void it('rejects a container ID with characters the spec forbids', async () => {
    const run = await runPlugin(
      recordingHandlers().handlers,
      envFor('ADD', { CNI_CONTAINERID: 'a/b' }),
      config('1.1.0'),
    );
    assert.equal(run.output?.['code'], 4);
    assert.match(String(run.output?.['msg']), /CNI_CONTAINERID/);
  });

  const required: Record<Exclude<CniCommand, 'VERSION'>, string[]> = {
    ADD: ['CNI_CONTAINERID', 'CNI_NETNS', 'CNI_IFNAME', 'CNI_PATH'],
    CHECK: ['CNI_CONTAINERID', 'CNI_NETNS', 'CNI_IFNAME', 'CNI_PATH'],
    DEL: ['CNI_CONTAINERID', 'CNI_IFNAME', 'CNI_PATH'],
    GC: ['CNI_PATH'],
    STATUS: ['CNI_PATH'],
  };
  for (const [command, names] of Object.entries(required)) {
    void it(`${command} requires exactly ${names.join(', ')}`, async () => {
      const run = await runPlugin(recordingHandlers().handlers, { CNI_COMMAND: command }, config('1.1.0'));
      assert.equal(run.output?.['msg'], `required env variables [${names.join(',')}] missing`);
    });
  }

  void it('lets DEL run without CNI_NETNS (the netns may be gone)', async () => {
    const { handlers, seen } = recordingHandlers();
    const env = envFor('DEL');
    delete env['CNI_NETNS'];
    const run = await runPlugin(handlers, env, config('1.1.0'));
    assert.equal(run.exitCode, 0);
    assert.equal(run.stdout, '');
    assert.equal(seen[0]?.netns, '');
  });

  void it('hands the handlers the parsed environment', async () => {
    const { handlers, seen } = recordingHandlers();
    await runPlugin(
      handlers,
      envFor('DEL', { CNI_ARGS: 'K8S_POD_NAME=dhcp;IgnoreUnknown=1' }),
      config('1.0.0'),
    );
    const args = seen[0];
    assert.ok(args);
    assert.deepEqual(args.path, ['/opt/cni/bin', '/usr/lib/cni']);
    assert.equal(args.cniVersion, '1.0.0');
    assert.equal(args.args, 'K8S_POD_NAME=dhcp;IgnoreUnknown=1');
    assert.equal(args.containerId, 'c0ffee');
  });
});

void describe('runCni versions', () => {
  void it("answers VERSION with the caller's cniVersion and the supported list", async () => {
    const run = await runPlugin(
      recordingHandlers().handlers,
      { CNI_COMMAND: 'VERSION' },
      { cniVersion: '0.4.0' },
    );
    assert.equal(run.exitCode, 0);
    assert.deepEqual(run.output, { cniVersion: '0.4.0', supportedVersions: [...SUPPORTED_CNI_VERSIONS] });
  });

  void it('answers VERSION with its newest version when the caller asks for one it does not speak', async () => {
    for (const asked of ['banana', '9.9.9', 'x'.repeat(100_000)]) {
      const run = await runPlugin(
        recordingHandlers().handlers,
        { CNI_COMMAND: 'VERSION' },
        { cniVersion: asked },
      );
      assert.deepEqual(run.output, { cniVersion: '1.1.0', supportedVersions: [...SUPPORTED_CNI_VERSIONS] });
    }
  });

  void it('answers VERSION without input with its newest version', async () => {
    const run = await runPlugin(recordingHandlers().handlers, { CNI_COMMAND: 'VERSION' }, '');
    assert.deepEqual(run.output, { cniVersion: '1.1.0', supportedVersions: [...SUPPORTED_CNI_VERSIONS] });
  });

  for (const version of ['0.2.0', '2.0.0', 'banana']) {
    void it(`rejects config version ${version} with code 1`, async () => {
      const run = await runPlugin(recordingHandlers().handlers, envFor('ADD'), config(version));
      assert.equal(run.output?.['code'], 1);
      assert.equal(run.output?.['msg'], 'incompatible CNI versions');
    });
  }

  void it('treats a missing cniVersion as 0.1.0 (incompatible)', async () => {
    const run = await runPlugin(recordingHandlers().handlers, envFor('ADD'), { name: 'x', type: 'y' });
    assert.equal(run.output?.['code'], 1);
  });

  const minimums: [CniCommand, string, string][] = [
    ['CHECK', '0.3.1', '0.4.0'],
    ['GC', '1.0.0', '1.1.0'],
    ['STATUS', '1.0.0', '1.1.0'],
  ];
  for (const [command, tooOld, enough] of minimums) {
    void it(`refuses ${command} for ${tooOld} (code 1) and runs it for ${enough}`, async () => {
      const { handlers, seen } = recordingHandlers();
      const old = await runPlugin(handlers, envFor(command), config(tooOld));
      assert.equal(old.output?.['code'], 1);
      assert.match(String(old.output?.['msg']), new RegExp(`does not allow ${command}`));
      assert.equal(seen.length, 0);
      const ok = await runPlugin(handlers, envFor(command), config(enough));
      assert.equal(ok.exitCode, 0);
      assert.equal(seen.length, 1);
    });
  }

  void it('reports undecodable stdin with code 6', async () => {
    const run = await runPlugin(recordingHandlers().handlers, envFor('ADD'), '{not json');
    assert.equal(run.output?.['code'], 6);
  });

  for (const version of SUPPORTED_CNI_VERSIONS) {
    void it(`prints the ADD result converted to ${version}`, async () => {
      const run = await runPlugin(recordingHandlers().handlers, envFor('ADD'), config(version));
      assert.equal(run.exitCode, 0);
      assert.equal(run.output?.['cniVersion'], version);
      const ips = run.output?.['ips'] as Record<string, unknown>[];
      if (version === '1.1.0' || version === '1.0.0') assert.equal(ips[0]?.['version'], undefined);
      else assert.equal(ips[0]?.['version'], '4');
      const interfaces = run.output?.['interfaces'] as Record<string, unknown>[];
      assert.equal(interfaces[0]?.['mtu'], version === '1.1.0' ? 1400 : undefined);
    });
  }
});

void describe('runCni errors', () => {
  void it('prints a CniError unchanged on stdout with exit code 1', async () => {
    const err = new CniError(11, 'agent restarting', 'ECONNREFUSED');
    const run = await runPlugin(recordingHandlers(err).handlers, envFor('ADD'), config('0.4.0'));
    assert.equal(run.exitCode, 1);
    assert.deepEqual(run.output, {
      cniVersion: '0.4.0',
      code: 11,
      msg: 'agent restarting',
      details: 'ECONNREFUSED',
    });
  });

  void it('turns any other exception into code 999', async () => {
    const run = await runPlugin(
      recordingHandlers(new TypeError('boom')).handlers,
      envFor('DEL'),
      config('1.1.0'),
    );
    assert.equal(run.exitCode, 1);
    assert.deepEqual(run.output, { cniVersion: '1.1.0', code: 999, msg: 'boom' });
  });

  void it('keeps independent invocations apart when run concurrently', async () => {
    const runs = await Promise.all(
      SUPPORTED_CNI_VERSIONS.map((version) =>
        runPlugin(recordingHandlers().handlers, envFor('ADD'), config(version)),
      ),
    );
    assert.deepEqual(
      runs.map((run) => run.output?.['cniVersion']),
      SUPPORTED_CNI_VERSIONS,
    );
  });
});
