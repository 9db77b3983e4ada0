import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { removeUnderlay } from '../../test/support/underlay.js';
import { startVppTarget, type VppTarget } from '../../test/support/vpp-target.js';
import { linuxHostLinks } from '../agent/host-links.js';
import { hostLinkOwner } from '../netns/link-owner.js';
import { reconcile } from '../agent/reconciler.js';
import { memoryStore } from '../hypervisor/reconcile.js';
import { SR_GLOBALS_FILE, SrGlobalsFileStore } from '../agent/sr-globals-file-store.js';
import { loadConfigFile } from '../config/load.js';
import { parseSrEncapsHopLimit, SR_ENCAPS_HOP_LIMIT_COMMAND } from '../srv6/sr-encaps.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import { msg } from '../vpp/messages/index.js';
import { CliUsageError, main } from './vppnet.js';

const CLI = fileURLToPath(new URL('./vppnet.js', import.meta.url));

/** An environment with none of the agent's VPPNET_* settings, plus `extra`. */
function envWithout(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VPPNET_')));
  return { ...env, ...extra };
}

async function run(
  argv: string[],
  env: NodeJS.ProcessEnv = envWithout(),
): Promise<{ code: number; out: string }> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => (text += c.toString()));
  const code = await main(argv, out, env);
  return { code, out: text };
}

/**
 * The CLI as its own process. With `closeStdout`, the read end of its stdout is closed before it
 * can write anything (as `| head -1` does once it has its line), so its first write meets EPIPE.
 */
async function spawnCli(
  argv: string[],
  opts: { env?: NodeJS.ProcessEnv; closeStdout?: boolean } = {},
): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...argv], {
    env: opts.env ?? envWithout(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  if (opts.closeStdout) child.stdout.destroy();
  else child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code, signal] = (await once(child, 'close')) as [number | null, string | null];
  return { code, signal, stdout, stderr };
}

describe('vppnet CLI', () => {
  it('plans the bundled example for a fresh VPP without contacting one', async () => {
    const { code, out } = await run(['plan']);
    assert.equal(code, 0);
    assert.match(out, /against a fresh VPP \(no VPP contacted\)/);
    // Dependencies first: the VPC table before the SID that decapsulates into it, policies before steering.
    const at = (key: string): number => out.indexOf(` ${key} `);
    assert.ok(at('ip-table:ip4:10') >= 0 && at('ip-table:ip4:10') < at('sr-localsid:fc00:1::a'));
    assert.ok(at('sr-policy:fc00:1:ff::1') < at('sr-steering:ip4:10:10.0.0.7/32'));
    assert.match(out, /\d+ operations: \d+ create, 0 update, 0 delete; 0 unchanged, 0 pending/);
  });

  it('plans a dual-stack VPC: the IPv6 table, End.DT6 SID, IPv6 steering and the port’s IPv6 link', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-cli-'));
    try {
      const file = path.join(dir, 'ds.json');
      await writeFile(
        file,
        JSON.stringify({
          node: {
            name: 'hv1',
            underlay: { interface: 'memif1/0', address: '2001:db8::1/64', gateway: '2001:db8::2' },
            srv6: { locator: 'fc00:1::/48' },
          },
          vpcs: [{ name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24', '2001:db8:a::/64'], gateway: '10.0.0.1' }],
          ports: [
            {
              name: 'vm1',
              vpc: 'vpc-a',
              mac: '52:54:00:61:0a:01',
              ip: '10.0.0.5',
              attach: { type: 'vhost-user', socket: '/run/vppnet/vhost/vm1.sock' },
            },
          ],
          remoteRoutes: [{ vpc: 'vpc-a', prefix: '2001:db8:a:0:5054:ff:fe62:a01/128', sid: 'fc00:2::100:a' }],
        }),
      );
      const { code, out } = await run(['plan', '--config', file, '--verbose']);
      assert.equal(code, 0);
      const at = (key: string): number => {
        const i = out.indexOf(` ${key} `);
        assert.ok(i >= 0, `${key} in:\n${out}`);
        return i;
      };
      const port = 'vppnet:vm:vm1';
      assert.ok(at('ip-table:ip6:10') < at('sr-localsid:fc00:1::100:a'));
      assert.ok(at('ip-table:ip6:10') < at('sr-steering:ip6:10:2001:db8:a:0:5054:ff:fe62:a01/128'));
      assert.ok(at(`interface-mtu:${port}`) < at(`ip6-enable:${port}`));
      assert.ok(at(`ip6-enable:${port}`) < at(`ip6-ra-prefix:${port}:2001:db8:a::/64`));
      assert.ok(at(`ip6-ra-prefix:${port}:2001:db8:a::/64`) < at(`ip6-ra-config:${port}`));
      at(`ip6-link-local:${port}`);
      at(`ip6-nd-mirror-proxy:${port}`);
      at('route:ip6:10:2001:db8:a:0:5054:ff:fe61:a01/128');
      // --verbose shows the values: the static neighbour's MAC is the VM's.
      assert.match(
        out,
        /static-neighbor:vppnet:vm:vm1:2001:db8:a:0:5054:ff:fe61:a01 .*\n.*"mac":"52:54:00:61:0a:01"/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('prints the plan as JSON', async () => {
    const { out } = await run(['plan', '--json']);
    const plan = JSON.parse(out) as { ops: { action: string; key: string }[] };
    assert.ok(plan.ops.length > 20);
    assert.ok(plan.ops.every((o) => o.action === 'create'));
  });

  it('fails on an invalid config with the field named', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-cli-'));
    try {
      await writeFile(path.join(dir, 'bad.yaml'), 'node: {name: X}\n');
      await assert.rejects(run(['plan', '--config', path.join(dir, 'bad.yaml')]), /node\.name: must be/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("documents --state-dir, with the agent's variable and default, in plan --help and status --help", async () => {
    for (const command of ['plan', 'status']) {
      const { code, out } = await run([command, '--help']);
      assert.equal(code, 0);
      assert.match(out, new RegExp(`^usage: vppnet ${command} `));
      assert.match(out, /--state-dir DIR .*\n.*env VPPNET_STATE_DIR; default \/var\/lib\/vppnet/);
    }
    assert.match(
      (await run(['help'])).out,
      /vppnet status --config FILE \| --datastore etcd --node-name NODE \[--vpp SOCKET\] \[--state-dir DIR\]/,
    );
  });

  it('refuses status and plan --vpp without a config, rather than diffing against the bundled example', async () => {
    await assert.rejects(
      run(['status', '--vpp', '/nonexistent/api.sock']),
      (err: unknown) => err instanceof CliUsageError && /--config FILE is required/.test(err.message),
    );
    await assert.rejects(
      run(['plan', '--vpp', '/nonexistent/api.sock']),
      (err: unknown) =>
        err instanceof CliUsageError && /plan --vpp: --config FILE is required/.test(err.message),
    );
    const spawned = await spawnCli(['status', '--vpp', '/nonexistent/api.sock']);
    assert.equal(spawned.code, 2);
    assert.equal(spawned.stdout, '');
    assert.match(spawned.stderr, /^vppnet status: --config FILE is required: .*VPPNET_CONFIG/);
  });

  it('rejects an unknown option naming it, with exit status 2', async () => {
    const spawned = await spawnCli(['status', '--conifg', 'x.yaml']);
    assert.equal(spawned.code, 2);
    assert.match(spawned.stderr, /'--conifg'.*see vppnet status --help/);
  });

  it('ends quietly when its stdout is closed before it writes (plan | head -1)', async () => {
    const r = await spawnCli(['plan'], { closeStdout: true });
    assert.deepEqual(
      { code: r.code, signal: r.signal, stderr: r.stderr },
      { code: 0, signal: null, stderr: '' },
    );
  });

  describe('against a VPP', () => {
    let target: VppTarget;
    let dir: string;
    let configPath: string;
    let underlayIndex = 0;
    let hopLimitBefore: number | undefined;
    /** An agent state directory that does not exist: nothing to fall back on. */
    let absentStateDir: string;
    before(async () => {
      target = await startVppTarget();
      dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-cli-'));
      absentStateDir = path.join(dir, 'no-such-state-dir');
      const c = new VppClient({ socketPath: target.socketPath, healthCheckIntervalMs: 0 });
      await c.connect();
      hopLimitBefore = parseSrEncapsHopLimit(await c.cli(SR_ENCAPS_HOP_LIMIT_COMMAND));
      const lo = await c.call(msg.create_loopback_instance, {});
      const [d] = await c.dump(msg.sw_interface_dump, { sw_if_index: lo.sw_if_index });
      underlayIndex = lo.sw_if_index;
      await c.close();
      configPath = path.join(dir, 'config.yaml');
      await writeFile(
        configPath,
        stringify({
          // Not VPP's initial 64: "in sync" then proves the hop limit was read from VPP.
          node: {
            name: 'hv1',
            underlay: { interface: d!.interface_name, address: '2001:db8::1/64', gateway: '2001:db8::2' },
            srv6: { locator: 'fc00:1::/48', hopLimit: 17 },
          },
          vpcs: [{ name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' }],
          remoteRoutes: [{ vpc: 'vpc-a', prefix: '10.0.0.7/32', sid: 'fc00:2::a' }],
        }),
      );
    });
    after(async () => {
      if (target.real) {
        // Leave a real VPP as found: nothing of vppnet's, and not the test's "NIC" either.
        const c = new VppClient({ socketPath: target.socketPath, healthCheckIntervalMs: 0 });
        await c.connect();
        const cfg = await loadConfigFile(configPath);
        await reconcile(
          { ...cfg, vpcs: [], ports: [], remoteRoutes: [] },
          { client: c, host: linuxHostLinks(hostLinkOwner(target.socketPath)), globals: memoryStore() },
        );
        const all = await c.dump(msg.sw_interface_dump, { sw_if_index: 0xffffffff });
        const lo = all.find((i) => i.sw_if_index === underlayIndex);
        if (lo) await removeUnderlay(c, { name: lo.interface_name, swIfIndex: underlayIndex });
        if (hopLimitBefore !== undefined)
          await c.call(msg.sr_set_encap_hop_limit, { hop_limit: hopLimitBefore });
        await c.close();
      }
      await target.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('shows the diff against a live VPP, changes nothing, and says "in sync" once converged, also without the agent\'s state dir (the advertisement then unknown, not a difference)', async () => {
      const env = envWithout({ VPPNET_STATE_DIR: absentStateDir });
      const before = await run(['plan', '--config', configPath, '--vpp', target.socketPath], env);
      assert.match(before.out, /create {2}sr-steering:ip4:10:10\.0\.0\.7\/32/);
      assert.doesNotMatch(before.out, /note: SRv6/, 'VPP reported the SRv6 globals itself');
      const again = await run(['plan', '--config', configPath, '--vpp', target.socketPath], env);
      assert.equal(again.out, before.out, 'planning changed nothing in VPP');

      // The agent converges the node and remembers what VPP cannot report in its state directory,
      // which the CLI does not look at yet.
      const agentStateDir = path.join(dir, 'agent-state');
      const client = new VppClient({ socketPath: target.socketPath, healthCheckIntervalMs: 0 });
      await client.connect();
      try {
        await reconcile(await loadConfigFile(configPath), {
          client,
          host: linuxHostLinks(hostLinkOwner(target.socketPath)),
          globals: new SrGlobalsFileStore(path.join(agentStateDir, SR_GLOBALS_FILE)),
        });
      } finally {
        await client.close();
      }
      // Without the agent's memory only the underlay's neighbour advertisement is unknown: it
      // leaves nothing in VPP to read. Unknown is not a difference: status says in sync, and
      // names the one item it could not check, in a note and in "unknown".
      const blind = JSON.parse(
        (await run(['status', '--config', configPath, '--vpp', target.socketPath, '--json'], env)).out,
      ) as {
        inSync: boolean;
        pendingOps: number;
        unknown: string[];
        notes: string[];
      };
      assert.equal(blind.unknown.length, 1);
      assert.match(blind.unknown[0]!, /^neighbor-announcement:/);
      assert.deepEqual(
        { inSync: blind.inSync, pendingOps: blind.pendingOps },
        { inSync: true, pendingOps: 0 },
      );
      assert.equal(blind.notes.length, 1);
      assert.ok(blind.notes[0]!.startsWith(`${blind.unknown[0]} not checked: `), blind.notes[0]);
      assert.match(blind.notes[0]!, /neighbour advertisement cannot be read from VPP/);
      const blindText = (await run(['status', '--config', configPath, '--vpp', target.socketPath], env)).out;
      assert.ok(
        blindText.endsWith(`\nin sync with the config (not checked: ${blind.unknown[0]}; see the note)\n`),
        blindText,
      );
      assert.ok(blindText.includes(`\nnote: ${blind.notes[0]}\n`));
      // plan still lists it: the agent may need to send it.
      const blindPlan = (await run(['plan', '--config', configPath, '--vpp', target.socketPath], env)).out;
      assert.ok(blindPlan.includes(` ${blind.unknown[0]} `), blindPlan);

      env.VPPNET_STATE_DIR = agentStateDir;
      const status = await run(['status', '--config', configPath, '--vpp', target.socketPath, '--json'], env);
      const s = JSON.parse(status.out) as {
        config: string;
        owned: Record<string, number>;
        inSync: boolean;
        pendingOps: number;
        unknown: string[];
        notes: string[];
      };
      assert.equal(s.owned['sr-steering'], 1);
      assert.equal(s.owned['sr-policy'], 1);
      assert.deepEqual(
        { inSync: s.inSync, pendingOps: s.pendingOps, notes: s.notes, unknown: s.unknown, config: s.config },
        { inSync: true, pendingOps: 0, notes: [], unknown: [], config: configPath },
      );

      const text = await run(['status', '--config', configPath, '--vpp', target.socketPath], env);
      assert.match(text.out, /\nin sync with the config\n$/);
      assert.match(text.out, new RegExp(`\nconfig ${configPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n`));
      const plan = await run(['plan', '--config', configPath, '--vpp', target.socketPath], env);
      assert.match(plan.out, /0 operations: 0 create, 0 update, 0 delete;/);
    });

    it("takes --config from the agent's VPPNET_CONFIG and --vpp from VPPNET_VPP_SOCKET", async () => {
      const env = envWithout({
        VPPNET_CONFIG: configPath,
        VPPNET_VPP_SOCKET: target.socketPath,
        VPPNET_STATE_DIR: absentStateDir,
      });
      const s = JSON.parse((await run(['status', '--json'], env)).out) as {
        config: string;
        vpp: { socket: string };
      };
      assert.equal(s.config, configPath);
      assert.equal(s.vpp.socket, target.socketPath);
    });

    it('ends quietly when its stdout is closed early (status | head -1)', async () => {
      const r = await spawnCli(['status', '--config', configPath, '--vpp', target.socketPath], {
        closeStdout: true,
        env: envWithout({ VPPNET_STATE_DIR: absentStateDir }),
      });
      assert.deepEqual(
        { code: r.code, signal: r.signal, stderr: r.stderr },
        { code: 0, signal: null, stderr: '' },
      );
    });
  });
});
