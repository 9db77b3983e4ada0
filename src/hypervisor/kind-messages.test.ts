/**
 * Every message a pass sends is declared where it is sent from: by the kind whose create, delete
 * or update sends it (KindSpec.messages), or by the domain whose part of the snapshot reads it
 * (Domain.reads). Passes that create, change and delete what a rich config makes run on the
 * simulator, each kind's operations wrapped so that what they send is recorded under the kind.
 * An undeclared message fails here, so required-messages.ts (derived from the declarations)
 * cannot miss one a kind needs.
 */
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createUnderlay } from '../../test/support/underlay.js';
import { SIM_ONLY, startVppTarget, type VppTarget } from '../../test/support/vpp-target.js';
import { validateConfig } from '../config/validate.js';
import type { HostLinks } from '../dataplane/context.js';
import type { Descriptor, KindMessages } from '../reconcile/descriptor.js';
import type { MessageDef } from '../vpp/codec/schema.js';
import type { VppApi } from '../vpp/client/vpp-api.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import { msg } from '../vpp/messages/index.js';
import { hypervisorDomains, hypervisorKinds } from './kinds.js';
import { memoryStore, reconcile } from './reconcile.js';
import { loadSnapshot } from './snapshot.js';
import { REQUIRED_MESSAGES } from './required-messages.js';

/** Kinds these passes cannot reach, and why; any other kind must have run. */
const NOT_EXERCISED: ReadonlyMap<string, string> = new Map([
  ['host-veth', "a veth port's: the simulator cannot take a host link with af_packet"],
  ['acl-binding', "a pod port's: pods attach through the attachment manager, not a pass"],
  ['macip-acl', "a pod port's"],
  ['macip-binding', "a pod port's"],
  ['l2fib-entry', "a pod port's"],
  ['nat-output', 'NAT44-ED: only removed, what earlier versions made'],
  ['nat-static', 'NAT44-ED: only removed'],
  ['nat-identity', 'NAT44-ED: only removed'],
]);

const names = (m: KindMessages | undefined): string[] =>
  [...(m?.required ?? []), ...(m?.optional ?? [])].map((d) => d.name);

/** The client's own messages, sent for every caller (a dump's closing ping). */
const CLIENT_OWN = new Set([msg.control_ping.name]);

describe('the messages kinds and reads declare', { skip: SIM_ONLY }, () => {
  let target: VppTarget;
  let client: VppClient;
  let dir: string;
  let underlay: string;
  /** An interface someone else made, which a port takes (`attach: interface`). */
  let operators: string;
  const scope = new AsyncLocalStorage<string>();
  /** Message names sent, by kind (inside its create, delete or update) or '' (anywhere else). */
  const sent = new Map<string, Set<string>>();
  const record = (def: MessageDef): void => {
    const where = scope.getStore() ?? '';
    let set = sent.get(where);
    if (set === undefined) sent.set(where, (set = new Set()));
    set.add(def.name);
  };
  /** The client, recording every message it is asked to send. */
  let recorded: VppApi;

  before(async () => {
    target = await startVppTarget();
    dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-kind-messages-'));
    client = new VppClient({
      socketPath: target.socketPath,
      clientName: 'kind-messages',
      healthCheckIntervalMs: 0,
    });
    await client.connect();
    underlay = (await createUnderlay(client)).name;
    operators = (await createUnderlay(client)).name;
    const through = {
      call: (def: MessageDef) => record(def),
      dump: (def: MessageDef) => record(def),
      dumpEach: (def: MessageDef) => record(def),
      getAll: (def: MessageDef) => record(def),
      cli: () => record(msg.cli_inband),
      ping: () => record(msg.control_ping),
    } as const;
    recorded = new Proxy(client, {
      get(t, p) {
        const value: unknown = Reflect.get(t, p, t);
        if (typeof value !== 'function') return value;
        const note = through[p as keyof typeof through] as ((def: MessageDef) => void) | undefined;
        return (...args: unknown[]) => {
          note?.(args[0] as MessageDef);
          return (value as (...a: unknown[]) => unknown).apply(t, args);
        };
      },
    });
    // Each kind's operations run inside a scope that names it (the registry's descriptors are
    // this process's own: the test runs in a process of its own).
    for (const kind of hypervisorKinds.kinds) {
      const d = hypervisorKinds.get(kind) as { -readonly [K in keyof Descriptor]: Descriptor[K] };
      const { create, delete: remove, update } = d;
      d.create = (ctx, r) => scope.run(kind, () => create.call(d, ctx, r));
      d.delete = (ctx, r) => scope.run(kind, () => remove.call(d, ctx, r));
      if (update) d.update = (ctx, a, b) => scope.run(kind, () => update.call(d, ctx, a, b));
    }
  });

  after(async () => {
    await client.close();
    await target.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Veth pairs as a host would have them, none really made. */
  const veths = new Set<string>();
  const host: HostLinks = {
    createVeth: (spec) => Promise.resolve(void veths.add(spec.hostName)),
    deleteVeth: (name) => Promise.resolve(void veths.delete(name)),
    listVeths: (prefix) => Promise.resolve([...veths].filter((v) => v.startsWith(prefix))),
    keepIsolated: () => Promise.resolve(),
  };

  const config = (o: {
    hopLimit: number;
    mtu: number;
    rateKbps: number;
    sid: string;
    empty?: boolean;
  }): unknown => ({
    node: {
      name: 'hv1',
      underlay: {
        interface: underlay,
        address: '2001:db8::1/64',
        gateway: '2001:db8::2',
        neighborMaxAgeSeconds: 600,
        mtu: 9000,
      },
      vhostUser: { directory: dir },
      srv6: { locator: 'fc00:1::/48', hopLimit: o.hopLimit },
    },
    vpcs: o.empty
      ? []
      : [
          {
            name: 'vpc-a',
            id: 10,
            subnets: ['10.0.0.0/24', '2001:db8:a::/64'],
            gateway: '10.0.0.1',
            mtu: o.mtu,
          },
          { name: 'vpc-b', id: 20, subnets: ['10.0.1.0/24'], gateway: '10.0.1.1' },
        ],
    ports: o.empty
      ? []
      : [
          {
            name: 'vm1',
            vpc: 'vpc-a',
            mac: '52:54:00:00:0e:01',
            ip: '10.0.0.5',
            ip6: '2001:db8:a::5',
            attach: { type: 'vhost-user', socket: path.join(dir, 'vm1.sock') },
          },
          {
            name: 'vm2',
            vpc: 'vpc-b',
            mac: '52:54:00:00:0e:02',
            ip: '10.0.1.5',
            attach: { type: 'interface', name: operators },
          },
        ],
    remoteRoutes: o.empty
      ? []
      : [
          { vpc: 'vpc-a', prefix: '10.9.0.0/24', sid: o.sid },
          // The remote node's End.DT6 SID: its DT4 one + 2^24.
          { vpc: 'vpc-a', prefix: '2001:db8:9::/64', sid: o.sid.replace(/::a$/, '::100:a') },
        ],
    ...(!o.empty && {
      services: {
        dnsAddress: '169.254.169.53',
        dhcpServer: '169.254.169.103',
        ip6: {},
        vmLimits: { rateKbps: o.rateKbps, burstBytes: 3000 },
      },
    }),
  });

  it('a kind sends only what it declares, and a pass nothing a domain does not', async () => {
    const globals = memoryStore();
    const ran = new Set<string>();
    const apply = async (raw: unknown): Promise<void> => {
      const outcome = await reconcile(validateConfig(raw), {
        client: recorded,
        host,
        files: FAKE_FILES,
        globals,
      });
      assert.deepEqual(
        outcome.result?.failed.map((x) => `${x.op.action} ${x.op.resource.key}: ${x.error.message}`),
        [],
      );
      for (const op of outcome.plan.ops) ran.add(op.kind);
    };
    await apply(config({ hopLimit: 64, mtu: 1400, rateKbps: 200, sid: 'fc00:2::a' }));
    await apply(config({ hopLimit: 63, mtu: 8000, rateKbps: 400, sid: 'fc00:3::a' }));
    await apply(config({ hopLimit: 63, mtu: 8000, rateKbps: 400, sid: 'fc00:3::a', empty: true }));

    const undeclared: string[] = [];
    for (const [kind, messages] of sent) {
      if (kind === '') continue;
      const declared = new Set(names(hypervisorKinds.get(kind)?.messages));
      for (const m of messages) if (!declared.has(m)) undeclared.push(`${kind} sends ${m}`);
    }
    // Elsewhere: the snapshot's reads, and the bulk kinds' ops (steering), which run without a
    // descriptor call.
    const elsewhere = new Set([
      ...hypervisorDomains.flatMap((d) => names(d.reads)),
      ...[...ran].flatMap((k) => names(hypervisorKinds.get(k)?.messages)),
      ...CLIENT_OWN,
    ]);
    for (const m of sent.get('') ?? []) if (!elsewhere.has(m)) undeclared.push(`a pass sends ${m}`);
    assert.deepEqual(undeclared, []);

    const missed = hypervisorKinds.kinds.filter((k) => !ran.has(k) && !NOT_EXERCISED.has(k));
    assert.deepEqual(missed, [], 'kinds these passes never ran: make them run, or say why not');
    const listed = [...NOT_EXERCISED.keys()].filter((k) => ran.has(k) || !hypervisorKinds.has(k));
    assert.deepEqual(listed, [], 'NOT_EXERCISED lists kinds that ran or do not exist');
  });

  it('the snapshot reads only what the domains declare', async () => {
    sent.clear();
    await loadSnapshot(recorded, {
      externalInterfaces: [underlay],
      sharedTables: [{ id: 0, ip6: true }],
      services: true,
    });
    const declared = new Set([...hypervisorDomains.flatMap((d) => names(d.reads)), ...CLIENT_OWN]);
    assert.deepEqual(
      [...(sent.get('') ?? [])].filter((m) => !declared.has(m)),
      [],
    );
  });

  it('requires at connect exactly the required messages of the kinds and reads, once each', () => {
    const required = REQUIRED_MESSAGES.map((d) => d.name);
    assert.equal(new Set(required).size, required.length);
    for (const d of hypervisorDomains)
      for (const m of [...(d.reads.required ?? []), ...d.kinds.flatMap((k) => k.messages?.required ?? [])])
        assert.ok(required.includes(m.name), `${d.name}: ${m.name}`);
    // The service bridge's plugins are checked per operation: a node without services needs none.
    for (const m of [msg.nat44_ei_plugin_enable_disable, msg.acl_add_replace, msg.dhcp_proxy_config])
      assert.ok(!required.includes(m.name), m.name);
  });
});

/** The vhost-user sockets as VPP would have made them, in a directory made on every pass. */
const FAKE_FILES = {
  stat: (p: string) =>
    Promise.resolve(
      p.endsWith('.sock') ? { type: 'socket' as const, uid: 0, gid: 0, mode: 0o600 } : undefined,
    ),
  makeDirectory: () => Promise.resolve(),
  setAccess: () => Promise.resolve(),
};
