import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { parseNetworkConfig } from './config.js';
import { CniError } from './errors.js';
import { ExecIpam, findPluginInPath } from './ipam.js';
import type { CmdArgs, CniCommand } from './skel.js';

/**
 * Fake IPAM plugins are small shell scripts: they log their environment and stdin to files and
 * answer as told, so the real exec path (env, stdin, exit codes, stdout) is what gets tested.
 */
void describe('ExecIpam', () => {
  let dir = '';
  let binDir = '';

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vppnet-ipam-'));
    binDir = join(dir, 'bin');
    await mkdir(binDir);
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A plugin that logs "COMMAND CONTAINERID IFNAME NETNS FOO" and its stdin, then runs `body`. */
  async function fakePlugin(
    name: string,
    body: string,
    versions = '"0.3.0","0.3.1","0.4.0","1.0.0","1.1.0"',
  ): Promise<void> {
    const path = join(binDir, name);
    await writeFile(
      path,
      `#!/bin/sh
input=$(cat)
echo "$CNI_COMMAND $CNI_CONTAINERID $CNI_IFNAME $CNI_NETNS $FOO" >> "${dir}/${name}.log"
printf '%s\\n' "$input" >> "${dir}/${name}.stdin"
version=$(printf '%s' "$input" | grep -o '"cniVersion":"[^"]*"' | head -1 | cut -d'"' -f4)
if [ "$CNI_COMMAND" = VERSION ]; then
  echo '{"cniVersion":"'$version'","supportedVersions":[${versions}]}'
  exit 0
fi
${body}
`,
    );
    await chmod(path, 0o755);
  }

  const log = async (name: string): Promise<string[]> =>
    (await readFile(join(dir, `${name}.log`), 'utf8')).trim().split('\n');

  function invocation(
    command: CniCommand,
    ipamType: string,
    cniVersion = '1.0.0',
  ): [ReturnType<typeof parseNetworkConfig>, CmdArgs] {
    const stdinData = JSON.stringify({
      cniVersion,
      name: 'services',
      type: 'vppnet-cni',
      ipam: { type: ipamType },
    });
    const args: CmdArgs = {
      command,
      containerId: 'c-1',
      netns: '/var/run/netns/pod',
      ifname: 'eth1',
      args: '',
      path: [join(dir, 'missing'), binDir],
      stdinData,
      cniVersion,
      env: {
        FOO: 'bar',
        CNI_COMMAND: command,
        CNI_CONTAINERID: 'c-1',
        CNI_IFNAME: 'eth1',
        CNI_NETNS: '/var/run/netns/pod',
      },
      log: { info: () => undefined, warn: () => undefined },
    };
    return [parseNetworkConfig(stdinData), args];
  }

  async function rejectsWithCode(promise: Promise<unknown>, code: number): Promise<CniError> {
    try {
      await promise;
    } catch (err) {
      assert.ok(err instanceof CniError, `expected a CniError, got ${String(err)}`);
      assert.equal(err.code, code, err.message);
      return err;
    }
    assert.fail('expected a rejection');
  }

  void it('names the directories it searched when the plugin is not on CNI_PATH', async () => {
    const err = await rejectsWithCode(findPluginInPath('no-such-ipam', ['/a', '/b']), 7);
    assert.match(err.msg, /no-such-ipam/);
    assert.equal(err.details, 'searched: /a, /b');
  });

  void it('runs the plugin with the same stdin and environment, only CNI_COMMAND set', async () => {
    await fakePlugin(
      'ok-ipam',
      `echo '{"cniVersion":"1.0.0","ips":[{"address":"169.254.169.103/24","gateway":"169.254.169.1"}],"routes":[{"dst":"169.252.252.0/24"}],"dns":{}}'`,
    );
    const [config, args] = invocation('ADD', 'ok-ipam');
    const result = await new ExecIpam().add(config, args);
    assert.deepEqual(result, {
      interfaces: [],
      ips: [{ address: '169.254.169.103/24', gateway: '169.254.169.1' }],
      routes: [{ dst: '169.252.252.0/24' }],
      dns: {},
    });
    await new ExecIpam().del(config, { ...args, command: 'DEL' });
    assert.deepEqual(await log('ok-ipam'), [
      'ADD c-1 eth1 /var/run/netns/pod bar',
      'DEL c-1 eth1 /var/run/netns/pod bar',
    ]);
    assert.equal((await readFile(join(dir, 'ok-ipam.stdin'), 'utf8')).split('\n')[0], args.stdinData);
  });

  void it("passes the plugin's error JSON through unchanged", async () => {
    await fakePlugin('busy-ipam', `echo '{"code":11,"msg":"lock busy","details":"try later"}'; exit 1`);
    const [config, args] = invocation('ADD', 'busy-ipam');
    const err = await rejectsWithCode(new ExecIpam().add(config, args), 11);
    assert.equal(err.msg, 'lock busy');
    assert.equal(err.details, 'try later');
  });

  void it('reports a failure without error JSON as 999 with its stderr', async () => {
    await fakePlugin('crash-ipam', `echo 'panic: nil map' >&2; exit 2`);
    const [config, args] = invocation('DEL', 'crash-ipam');
    const err = await rejectsWithCode(new ExecIpam().del(config, args), 999);
    assert.match(err.msg, /exit code 2/);
    assert.equal(err.details, 'panic: nil map');
  });

  void it('rejects a result it cannot read (code 6)', async () => {
    await fakePlugin('garbled-ipam', `echo '{"ips":[{"address":"not-an-ip"}]}'`);
    const [config, args] = invocation('ADD', 'garbled-ipam');
    const err = await rejectsWithCode(new ExecIpam().add(config, args), 6);
    assert.match(err.details ?? '', /ipamResult\.ips\[0\]\.address/);
  });

  void it('asks again with an older version when the plugin stops at 1.0.0', async () => {
    await fakePlugin(
      'old-ipam',
      `if [ "$version" = 1.1.0 ]; then echo '{"code":1,"msg":"incompatible CNI versions"}'; exit 1; fi
echo '{"cniVersion":"'$version'","ips":[{"address":"169.254.169.103/24"}]}'`,
      '"0.1.0","0.2.0","0.3.0","0.3.1","0.4.0","1.0.0"',
    );
    const [config, args] = invocation('ADD', 'old-ipam', '1.1.0');
    const result = await new ExecIpam().add(config, args);
    assert.equal(result.ips[0]?.address, '169.254.169.103/24');
    assert.deepEqual(
      (await log('old-ipam')).map((line) => line.split(' ')[0]),
      ['ADD', 'VERSION', 'ADD'],
    );
    const stdins = (await readFile(join(dir, 'old-ipam.stdin'), 'utf8')).trim().split('\n');
    assert.equal((JSON.parse(stdins[2] ?? '') as { cniVersion: string }).cniVersion, '1.0.0');
  });

  void it('skips GC and STATUS for plugins older than 1.1.0 and runs them otherwise', async () => {
    await fakePlugin('pre-gc-ipam', 'exit 0', '"0.4.0","1.0.0"');
    await fakePlugin('gc-ipam', 'exit 0');
    const [oldConfig, oldArgs] = invocation('GC', 'pre-gc-ipam', '1.1.0');
    assert.equal(await new ExecIpam().gc(oldConfig, oldArgs), false);
    assert.equal(await new ExecIpam().status(oldConfig, { ...oldArgs, command: 'STATUS' }), false);
    const [config, args] = invocation('GC', 'gc-ipam', '1.1.0');
    assert.equal(await new ExecIpam().gc(config, args), true);
    assert.equal(await new ExecIpam().status(config, { ...args, command: 'STATUS' }), true);
    assert.deepEqual(
      (await log('gc-ipam')).map((line) => line.split(' ')[0]),
      ['VERSION', 'GC', 'VERSION', 'STATUS'],
    );
  });

  void it('gives up on a hung plugin with code 11', async () => {
    await fakePlugin('hung-ipam', 'exec sleep 30');
    const [config, args] = invocation('ADD', 'hung-ipam');
    await rejectsWithCode(new ExecIpam({ timeoutMs: 300 }).add(config, args), 11);
  });
});
