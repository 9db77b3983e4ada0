import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';

import { AgentClient } from './agent-client.js';
import type { AttachRequest, AttachmentKey } from '../agent-api/protocol.js';
import type { NetworkConfig } from './config.js';
import { CniError } from './errors.js';
import type { IpamDelegate } from './ipam.js';
import { createPlugin } from './plugin.js';
import { formatResult, type CniResult } from './result.js';
import type { CmdArgs, CniHandlers } from './skel.js';
import { FakeAgentReply, FakeAgentServer, type FakeAgentBehaviour } from './testing/fake-agent-server.js';
import { runPlugin } from './testing/run-plugin.js';

const NETNS = '/var/run/netns/pod-a';
const IPAM_RESULT: CniResult = {
  interfaces: [],
  ips: [{ address: '169.254.169.103/24', gateway: '169.254.169.1' }],
  routes: [{ dst: '169.252.252.0/24' }],
  dns: { nameservers: ['169.254.169.53'] },
};

/** In-memory IPAM that writes what it is asked into a shared journal. */
class JournalIpam implements IpamDelegate {
  readonly leases = new Set<string>();
  failAdd: CniError | undefined;
  failGc: CniError | undefined;
  readonly #journal: string[];

  constructor(journal: string[]) {
    this.#journal = journal;
  }

  add(_config: NetworkConfig, args: CmdArgs): Promise<CniResult> {
    this.#journal.push('ipam ADD');
    if (this.failAdd) return Promise.reject(this.failAdd);
    this.leases.add(`${args.containerId}/${args.ifname}`);
    return Promise.resolve(IPAM_RESULT);
  }
  del(_config: NetworkConfig, args: CmdArgs): Promise<void> {
    this.#journal.push('ipam DEL');
    this.leases.delete(`${args.containerId}/${args.ifname}`);
    return Promise.resolve();
  }
  check(): Promise<void> {
    this.#journal.push('ipam CHECK');
    return Promise.resolve();
  }
  gc(): Promise<boolean> {
    this.#journal.push('ipam GC');
    return this.failGc ? Promise.reject(this.failGc) : Promise.resolve(true);
  }
  status(): Promise<boolean> {
    this.#journal.push('ipam STATUS');
    return Promise.resolve(true);
  }
}

void describe('vppnet-cni handlers', () => {
  let dir = '';
  let journal: string[] = [];
  let ipam: JournalIpam;
  let agent: FakeAgentServer | undefined;
  let socketPath = '';
  let n = 0;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vppnet-plugin-'));
  });
  after(async () => {
    await agent?.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await agent?.close();
    agent = undefined;
    journal = [];
    ipam = new JournalIpam(journal);
    socketPath = join(dir, `agent-${++n}.sock`);
  });

  /** Starts the fake agent with behaviours that also write into the journal. */
  async function startAgent(overrides: Partial<FakeAgentBehaviour> = {}): Promise<FakeAgentServer> {
    const attachments = new Map<string, AttachRequest>();
    const id = (key: AttachmentKey): string => `${key.containerId}/${key.ifname}`;
    agent = await FakeAgentServer.start(socketPath, {
      attach: (request) => {
        journal.push('agent attach');
        attachments.set(id(request), request);
        return {
          interfaces: [
            { name: 'vpn0123456789ab', mac: '02:00:00:00:00:01' },
            {
              name: request.ifname,
              mac: request.mac ?? '02:00:00:00:00:02',
              sandbox: request.netns,
              mtu: 1400,
            },
          ],
          mode: 'veth',
        };
      },
      detach: (key) => {
        journal.push('agent detach');
        attachments.delete(id(key));
      },
      getAttachment: (key) => {
        journal.push('agent get');
        const request = attachments.get(id(key));
        if (!request) throw new FakeAgentReply(404, { code: 101, msg: 'no such attachment' });
        return {
          ...key,
          mode: 'veth',
          interfaces: [],
          podInterface: {
            name: key.ifname,
            mac: '02:00:00:00:00:02',
            up: true,
            addresses: ['169.254.169.103/24'],
          },
        };
      },
      gc: () => {
        journal.push('agent gc');
      },
      ...overrides,
    });
    return agent;
  }

  function plugin(): CniHandlers {
    return createPlugin({
      ipam,
      connectAgent: (path) => new AgentClient({ socketPath: path, connectBudgetMs: 200, retryDelayMs: 20 }),
    });
  }

  function config(extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      cniVersion: '1.1.0',
      name: 'services',
      type: 'vppnet-cni',
      agentSocket: socketPath,
      mode: 'veth',
      mtu: 1400,
      ipam: { type: 'static' },
      ...extra,
    };
  }

  function env(command: string, extra: Record<string, string> = {}): Record<string, string> {
    return {
      CNI_COMMAND: command,
      CNI_CONTAINERID: 'c-1',
      CNI_NETNS: NETNS,
      CNI_IFNAME: 'eth1',
      CNI_PATH: '/nonexistent',
      ...extra,
    };
  }

  void it('ADD: IPAM, then the agent, then a 1.1.0 result pointing IPs at the pod interface', async () => {
    await startAgent();
    const run = await runPlugin(plugin(), env('ADD', { CNI_ARGS: 'MAC=02:00:00:00:00:42' }), config());
    assert.equal(run.exitCode, 0, run.stdout);
    assert.deepEqual(journal, ['ipam ADD', 'agent attach']);
    assert.deepEqual(run.output, {
      cniVersion: '1.1.0',
      interfaces: [
        { name: 'vpn0123456789ab', mac: '02:00:00:00:00:01' },
        { name: 'eth1', mac: '02:00:00:00:00:42', mtu: 1400, sandbox: NETNS },
      ],
      ips: [{ address: '169.254.169.103/24', gateway: '169.254.169.1', interface: 1 }],
      routes: [{ dst: '169.252.252.0/24' }],
      dns: { nameservers: ['169.254.169.53'] },
    });
    // The route's next hop is made explicit for the agent: the gateway of the same family.
    assert.deepEqual(agent?.calls[0]?.body, {
      containerId: 'c-1',
      ifname: 'eth1',
      netns: NETNS,
      network: 'services',
      ips: [{ address: '169.254.169.103/24', gateway: '169.254.169.1' }],
      routes: [{ dst: '169.252.252.0/24', gw: '169.254.169.1' }],
      mode: 'veth',
      mtu: 1400,
      mac: '02:00:00:00:00:42',
    });
  });

  void it('ADD: appends to a prevResult and offsets the interface index', async () => {
    await startAgent();
    const prevResult = formatResult(
      {
        interfaces: [{ name: 'eth0', sandbox: NETNS }],
        ips: [{ address: '10.0.0.5/24', interface: 0 }],
        routes: [],
        dns: {},
      },
      '1.0.0',
    );
    const run = await runPlugin(plugin(), env('ADD'), config({ cniVersion: '1.0.0', prevResult }));
    assert.equal(run.exitCode, 0, run.stdout);
    assert.deepEqual(run.output?.['ips'], [
      { address: '10.0.0.5/24', interface: 0 },
      { address: '169.254.169.103/24', gateway: '169.254.169.1', interface: 2 },
    ]);
  });

  void it('ADD: an attach the agent refuses releases the lease and passes the error through', async () => {
    await startAgent({
      attach: () => {
        journal.push('agent attach');
        throw new FakeAgentReply(409, { code: 100, msg: 'interface eth1 already exists in the netns' });
      },
    });
    const run = await runPlugin(plugin(), env('ADD'), config());
    assert.equal(run.exitCode, 1);
    assert.deepEqual(run.output, {
      cniVersion: '1.1.0',
      code: 100,
      msg: 'interface eth1 already exists in the netns',
    });
    // The agent has undone its own part before answering: nothing of this ADD is left to detach.
    assert.deepEqual(journal, ['ipam ADD', 'agent attach', 'ipam DEL']);
    assert.equal(ipam.leases.size, 0);
  });

  void it('ADD: a second ADD of an attachment, one after the other or at once, leaves the first alone', async () => {
    // As the agent answers: an attachment that exists is refused with 100, whoever asks.
    await startAgent({
      attach: (request) => {
        journal.push('agent attach');
        const key = `${request.containerId}/${request.ifname}`;
        if (agent?.attachments.has(key))
          throw new FakeAgentReply(409, { code: 100, msg: `eth1 of container c-1 is already attached` });
        agent?.attachments.set(key, request);
        return {
          interfaces: [{ name: request.ifname, mac: '02:00:00:00:00:02', sandbox: request.netns }],
          mode: 'veth',
        };
      },
      detach: (key) => {
        journal.push('agent detach');
        agent?.attachments.delete(`${key.containerId}/${key.ifname}`);
      },
    });
    assert.equal((await runPlugin(plugin(), env('ADD'), config())).exitCode, 0);
    const again = await runPlugin(plugin(), env('ADD'), config());
    assert.equal(again.output?.['code'], 100);
    const atOnce = await Promise.all([1, 2, 3].map(() => runPlugin(plugin(), env('ADD'), config())));
    assert.deepEqual(
      atOnce.map((run) => run.output?.['code']),
      [100, 100, 100],
    );
    assert.equal(journal.includes('agent detach'), false, journal.join(', '));
    assert.deepEqual([...(agent?.attachments.keys() ?? [])], ['c-1/eth1']);
  });

  void it('ADD: an attach without an answer in time is detached: it may have been made', async () => {
    await startAgent({
      attach: () => {
        journal.push('agent attach');
        return new Promise(() => undefined);
      },
    });
    const impatient = createPlugin({
      ipam,
      connectAgent: (path) =>
        new AgentClient({ socketPath: path, connectBudgetMs: 200, requestTimeoutMs: 200 }),
    });
    const run = await runPlugin(impatient, env('ADD'), config());
    assert.equal(run.output?.['code'], 11);
    assert.deepEqual(journal, ['ipam ADD', 'agent attach', 'agent detach', 'ipam DEL']);
  });

  void it('ADD: an agent answer without the pod interface is undone too', async () => {
    await startAgent({
      attach: () => {
        journal.push('agent attach');
        return { interfaces: [{ name: 'vpn0123456789ab', mac: '02:00:00:00:00:01' }], mode: 'veth' };
      },
    });
    const run = await runPlugin(plugin(), env('ADD'), config());
    assert.equal(run.output?.['code'], 999);
    assert.deepEqual(journal, ['ipam ADD', 'agent attach', 'agent detach', 'ipam DEL']);
  });

  void it('ADD: an IPAM failure passes through and the agent is never called', async () => {
    await startAgent();
    ipam.failAdd = new CniError(7, 'no addresses left', 'range exhausted');
    const run = await runPlugin(plugin(), env('ADD'), config());
    assert.deepEqual(run.output, {
      cniVersion: '1.1.0',
      code: 7,
      msg: 'no addresses left',
      details: 'range exhausted',
    });
    assert.deepEqual(journal, ['ipam ADD']);
    assert.equal(agent?.calls.length, 0);
  });

  void it('ADD: an unreachable agent gives code 11 and releases the lease', async () => {
    const run = await runPlugin(plugin(), env('ADD'), config());
    assert.equal(run.output?.['code'], 11);
    assert.deepEqual(journal, ['ipam ADD', 'ipam DEL']);
    assert.equal(ipam.leases.size, 0);
    assert.match(run.stderr, /undo step failed/);
  });

  void it('DEL: detaches before releasing, and succeeds again and again', async () => {
    await startAgent();
    assert.equal((await runPlugin(plugin(), env('ADD'), config())).exitCode, 0);
    journal.length = 0;
    const withoutNetns = env('DEL');
    delete withoutNetns['CNI_NETNS'];
    for (const e of [env('DEL'), env('DEL'), withoutNetns]) {
      const run = await runPlugin(plugin(), e, config());
      assert.equal(run.exitCode, 0, run.stdout);
      assert.equal(run.stdout, '');
    }
    assert.deepEqual(journal, [
      'agent detach',
      'ipam DEL',
      'agent detach',
      'ipam DEL',
      'agent detach',
      'ipam DEL',
    ]);
    assert.deepEqual(agent?.callsTo('DELETE', '/v1/attachments')[2]?.query, {
      containerId: 'c-1',
      ifname: 'eth1',
      netns: '',
    });
  });

  void it('DEL: an unreachable agent fails with 11 and keeps the lease for the retry', async () => {
    ipam.leases.add('c-1/eth1');
    const run = await runPlugin(plugin(), env('DEL'), config());
    assert.equal(run.output?.['code'], 11);
    assert.deepEqual(journal, []);
    assert.equal(ipam.leases.size, 1);
  });

  void it('CHECK: needs prevResult (code 7)', async () => {
    await startAgent();
    const run = await runPlugin(plugin(), env('CHECK'), config());
    assert.equal(run.output?.['code'], 7);
    assert.match(String(run.output?.['msg']), /prevResult/);
  });

  void it('CHECK: compares the agent’s view with prevResult', async () => {
    await startAgent();
    const added = await runPlugin(plugin(), env('ADD'), config({ cniVersion: '0.4.0' }));
    assert.equal(added.exitCode, 0, added.stdout);
    const prevResult = added.output;
    const ok = await runPlugin(plugin(), env('CHECK'), config({ cniVersion: '0.4.0', prevResult }));
    assert.equal(ok.exitCode, 0, ok.stdout);
    assert.deepEqual(journal.slice(-2), ['ipam CHECK', 'agent get']);

    const interfaces = (prevResult?.['interfaces'] as Record<string, unknown>[]).map((iface) =>
      iface['name'] === 'eth1' ? { ...iface, mac: '02:00:00:00:00:99' } : iface,
    );
    const bad = await runPlugin(
      plugin(),
      env('CHECK'),
      config({ cniVersion: '0.4.0', prevResult: { ...prevResult, interfaces } }),
    );
    assert.equal(bad.output?.['code'], 999);
    assert.match(String(bad.output?.['details']), /mac is 02:00:00:00:00:02/);
  });

  void it('CHECK: the agent’s "no such attachment" passes through', async () => {
    await startAgent();
    const prevResult = {
      cniVersion: '1.0.0',
      interfaces: [{ name: 'eth1', sandbox: NETNS }],
      ips: [{ address: '169.254.169.103/24', interface: 0 }],
    };
    const run = await runPlugin(plugin(), env('CHECK', { CNI_CONTAINERID: 'other' }), config({ prevResult }));
    assert.equal(run.output?.['code'], 101);
  });

  void it('GC: forwards the valid attachments to IPAM and the agent', async () => {
    await startAgent();
    const valid = [{ containerID: 'c-1', ifname: 'eth1' }];
    const run = await runPlugin(
      plugin(),
      { CNI_COMMAND: 'GC', CNI_PATH: '/x' },
      config({ 'cni.dev/valid-attachments': valid }),
    );
    assert.equal(run.exitCode, 0, run.stdout);
    assert.deepEqual(journal, ['ipam GC', 'agent gc']);
    assert.deepEqual(agent?.calls[0]?.body, { network: 'services', validAttachments: valid });
  });

  void it('GC: requires cni.dev/valid-attachments (code 7)', async () => {
    const run = await runPlugin(plugin(), { CNI_COMMAND: 'GC', CNI_PATH: '/x' }, config());
    assert.equal(run.output?.['code'], 7);
  });

  void it('GC: still calls the agent when IPAM GC fails, then reports', async () => {
    await startAgent();
    ipam.failGc = new CniError(5, 'cannot read leases');
    const run = await runPlugin(
      plugin(),
      { CNI_COMMAND: 'GC', CNI_PATH: '/x' },
      config({ 'cni.dev/valid-attachments': [] }),
    );
    assert.equal(run.output?.['code'], 5);
    assert.deepEqual(journal, ['ipam GC', 'agent gc']);
  });

  void it('STATUS: ready when the agent reports VPP connected', async () => {
    await startAgent();
    const run = await runPlugin(plugin(), { CNI_COMMAND: 'STATUS', CNI_PATH: '/x' }, config());
    assert.equal(run.exitCode, 0, run.stdout);
    assert.deepEqual(journal, ['ipam STATUS']);
  });

  void it('STATUS: VPP down passes through as 50', async () => {
    await startAgent({
      status: () => {
        throw new FakeAgentReply(503, { code: 50, msg: 'VPP is not connected' });
      },
    });
    const run = await runPlugin(plugin(), { CNI_COMMAND: 'STATUS', CNI_PATH: '/x' }, config());
    assert.deepEqual(run.output, { cniVersion: '1.1.0', code: 50, msg: 'VPP is not connected' });
  });

  void it('STATUS: an unreachable agent is 50, not 11', async () => {
    const run = await runPlugin(plugin(), { CNI_COMMAND: 'STATUS', CNI_PATH: '/x' }, config());
    assert.equal(run.output?.['code'], 50);
    assert.match(String(run.output?.['msg']), /not reachable/);
  });
});
