/**
 * The service bridge for the bundled example (examples/hypervisor-1.yaml) against the design that
 * was verified on a real VPP 26.06 (../shared/vpp-transcripts/26.06-design, steps 10–15): the
 * requests vppnet sends must be byte for byte the recorded ones, and the recorded dumps must read
 * back as exactly the desired values.
 */
import assert from 'node:assert/strict';
import { FIB_SOURCE_API } from '../dataplane/snapshot.js';
import { emptySnapshot } from '../hypervisor/snapshot.js';
import { NO_NAT } from './nat-reading.js';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

import {
  loadTranscripts,
  payloadOf,
  SKIP_NO_SHARED,
  transcriptsAvailable,
} from '../../test/support/transcripts.js';
import { parseConfig } from '../config/load.js';
import { actualDataplane } from '../dataplane/actual.js';
import { NO_HOST_FILES } from '../dataplane/context.js';
import { InterfaceRegistry } from '../dataplane/interface-registry.js';
import { keys, tags } from '../dataplane/keys.js';
import type { VppSnapshot } from '../hypervisor/snapshot.js';
import { canonicalEqual } from '../reconcile/descriptor.js';
import { execute } from '../reconcile/executor.js';
import { plan as makePlan } from '../reconcile/planner.js';
import type { Resource } from '../reconcile/resource.js';
import { decodeMessage, encodeMessage } from '../vpp/codec/message-codec.js';
import type { Message, MessageDef } from '../vpp/codec/schema.js';
import { RecordingVppApi } from '../vpp/client/testing/recording-vpp-api.js';
import { definitionByNameCrc, msg } from '../vpp/messages/index.js';
import { hypervisorKinds as descriptors } from '../hypervisor/kinds.js';
import type { AclRuleValue } from '../dataplane/acl-descriptors.js';
import { AclRegistry } from '../dataplane/acl-registry.js';
import { actualServices } from './actual.js';
import { MACIP, type ServicesContext } from './context.js';
import { vmRateLimitDescriptor } from './vm-rate-limit.js';
import { desiredServices } from './desired.js';
import type { PodPortSpec } from './pod-port.js';
import { NO_HOST_LINKS } from '../../test/support/no-host-links.js';

const config = parseConfig(
  readFileSync(new URL('../../../examples/hypervisor-1.yaml', import.meta.url), 'utf8'),
);

/** The transcript's pods were veth pairs named vsmd and vsdhcp; its VMs got .5 and .6. */
const pods: PodPortSpec[] = [
  {
    id: 'vsmd',
    mode: 'veth',
    netns: '/var/run/netns/md',
    ifname: 'eth1',
    podMac: '02:00:00:00:04:01',
    ips: ['169.254.169.254'],
    role: 'metadata',
  },
  {
    id: 'vsdhcp',
    mode: 'veth',
    netns: '/var/run/netns/dhcp',
    ifname: 'eth1',
    podMac: '02:00:00:00:04:02',
    ips: ['169.254.169.103'],
    role: 'dhcp',
  },
];
const addresses = new Map([
  ['vm1', '169.252.252.5'],
  ['vm2', '169.252.252.6'],
]);
const desired = desiredServices(config, { addresses, pods });
const byKey = new Map(desired.map((r) => [r.key, r]));

function valueOf<V>(key: string): V {
  const r = byKey.get(key);
  assert.ok(r, `desired has ${key}`);
  return r.value as V;
}

function anyRule(action: string, src: string, dst: string): AclRuleValue {
  return {
    action,
    src,
    dst,
    proto: 0,
    srcPorts: [0, 65535],
    dstPorts: [0, 65535],
    tcpFlagsMask: 0,
    tcpFlagsValue: 0,
  };
}

void describe('desired service bridge for the example config', () => {
  void it('builds the bridge, BVI, pod ACLs and NAT as the design says', () => {
    assert.deepEqual(valueOf(keys.ipTable(4000)), { table: 4000, ip6: false, name: 'vppnet:services' });
    // Since the design: a bridge that learns and floods nothing, ARP answered from its table.
    assert.deepEqual(valueOf(keys.bridgeDomain(100)), {
      bd: 100,
      flood: false,
      uuFlood: false,
      forward: true,
      learn: false,
      arpTerm: true,
      arpUfwd: false,
      macAge: 0,
      tag: 'vppnet:services',
    });
    const bviMac = (byKey.get(keys.interface('vppnet:services:bvi'))?.value as { mac: string }).mac;
    assert.deepEqual(valueOf(keys.bdIpMac(100, '169.254.169.1')), {
      bd: 100,
      ip: '169.254.169.1',
      mac: bviMac,
    });
    assert.deepEqual(valueOf(keys.bridgePort('vppnet:services:bvi')), {
      iface: 'vppnet:services:bvi',
      bd: 100,
      portType: 1,
      shg: 0,
    });
    assert.deepEqual(valueOf(keys.address('vppnet:services:bvi', '169.254.169.1/24')), {
      iface: 'vppnet:services:bvi',
      prefix: '169.254.169.1/24',
    });
    const any = '0.0.0.0/0';
    assert.deepEqual(valueOf(keys.acl('vppnet:pod-out')), {
      tag: 'vppnet:pod-out',
      rules: [anyRule('permit+reflect', '169.252.252.0/24', any), anyRule('permit', any, any)],
    });
    assert.equal(byKey.get(keys.acl('vppnet:pod-in')), undefined, 'no input ACL shared by every pod');
    assert.deepEqual(valueOf(keys.natStaticMapping(10, '10.0.0.5')), {
      vrf: 10,
      local: '10.0.0.5',
      external: '169.252.252.5',
      tag: 'vppnet:vm:vm1',
    });
    assert.deepEqual(valueOf(keys.natStaticMapping(20, '10.0.0.5')), {
      vrf: 20,
      local: '10.0.0.5',
      external: '169.252.252.6',
      tag: 'vppnet:vm:vm2',
    });
    for (const table of [4000, 10, 20]) {
      assert.deepEqual(valueOf(keys.natIdentityMapping(table, '169.254.169.1')), {
        vrf: table,
        address: '169.254.169.1',
        tag: 'vppnet:gw',
      });
    }
    assert.equal(desired.filter((r) => r.kind === 'nat-ei-static').length, 2, 'one mapping per VM port');
    assert.ok(!desired.some((r) => r.kind.includes('pool')), 'no NAT address pool');
  });

  void it('routes only the metadata and DNS addresses of each VPC into the services table', () => {
    const routes = desired.filter((r) => r.kind === 'route').map((r) => r.value);
    assert.deepEqual(routes, [
      { table: 10, ip6: false, prefix: '169.254.169.254/32', paths: [{ lookupTable: 4000 }] },
      { table: 10, ip6: false, prefix: '169.254.169.53/32', paths: [{ lookupTable: 4000 }] },
      { table: 20, ip6: false, prefix: '169.254.169.254/32', paths: [{ lookupTable: 4000 }] },
      { table: 20, ip6: false, prefix: '169.254.169.53/32', paths: [{ lookupTable: 4000 }] },
    ]);
  });

  void it('relays DHCP per VPC with the VPC name as VSS id', () => {
    assert.deepEqual(valueOf(keys.dhcpProxy(10)), {
      rxTable: 10,
      src: '169.254.169.1',
      servers: [{ table: 4000, address: '169.254.169.103' }],
    });
    assert.deepEqual(valueOf(keys.dhcpVss(10)), { table: 10, vpnId: 'vpc-a' });
    assert.deepEqual(valueOf(keys.dhcpVss(20)), { table: 20, vpnId: 'vpc-b' });
  });

  void it('gives each pod an input ACL for its role and a MACIP ACL for its own MAC and address', () => {
    const any = '0.0.0.0/0';
    const deny = { ...anyRule('deny', any, '169.252.252.0/24') };
    assert.deepEqual(valueOf(keys.acl('vppnet:pod-in:vsmd')), {
      tag: 'vppnet:pod-in:vsmd',
      rules: [deny, anyRule('deny', any, any)],
    });
    assert.deepEqual(valueOf(keys.acl('vppnet:pod-in:vsdhcp')), {
      tag: 'vppnet:pod-in:vsdhcp',
      rules: [
        deny,
        {
          ...anyRule('permit', '169.254.169.103/32', '169.254.169.1/32'),
          proto: 17,
          srcPorts: [67, 67],
          dstPorts: [67, 67],
        },
        anyRule('deny', any, any),
      ],
    });
    for (const pod of pods) {
      const name = tags.podPort(pod.id);
      assert.deepEqual(valueOf(keys.macipAcl(`vppnet:pod-macip:${pod.id}`)), {
        tag: `vppnet:pod-macip:${pod.id}`,
        rules: [{ mac: pod.podMac, prefix: `${pod.ips[0] ?? ''}/32` }],
      });
      assert.deepEqual(valueOf(keys.macipBinding(name)), { iface: name, acl: `vppnet:pod-macip:${pod.id}` });
      assert.deepEqual(valueOf(keys.l2FibEntry(100, pod.podMac)), { bd: 100, mac: pod.podMac, iface: name });
      assert.deepEqual(valueOf(keys.bdIpMac(100, pod.ips[0] ?? '')), {
        bd: 100,
        ip: pod.ips[0],
        mac: pod.podMac,
      });
    }
  });

  void it('plugs each pod into the bridge with both ACLs', () => {
    const name = tags.podPort('vsmd');
    assert.deepEqual(valueOf(keys.interface(name)), {
      type: 'af_packet',
      name,
      hostIfName: 'vsmd',
      mac: (byKey.get(keys.interface(name))?.value as { mac: string }).mac,
      txFrames: 256,
    });
    assert.deepEqual(valueOf(keys.bridgePort(name)), { iface: name, bd: 100, portType: 0, shg: 0 });
    assert.deepEqual(valueOf(keys.aclBinding(name)), {
      iface: name,
      input: ['vppnet:pod-in:vsmd'],
      output: ['vppnet:pod-out'],
    });
    assert.equal(
      byKey.get(keys.hostVeth('vsmd'))?.external,
      true,
      'the attachment manager makes the veth pair',
    );
  });
});

/** Stands in for VPP: records requests and answers with the transcript VPP's indexes. */
/** What VPP answers these requests with in the design transcript (the ids vppnet then uses). */
function transcriptVpp(): RecordingVppApi {
  return new RecordingVppApi({ state: 'ready' })
    .answer(msg.create_loopback_instance, () => ({ sw_if_index: 4 }))
    .answer(msg.af_packet_create_v3, (input) => ({ sw_if_index: input.host_if_name === 'vsmd' ? 5 : 6 }))
    .answer(msg.acl_add_replace, (input) => ({ acl_index: input.tag === 'vppnet:pod-out' ? 0 : 1 }))
    .answer(msg.macip_acl_add_replace, (input) => ({ acl_index: input.tag?.endsWith('vsmd') ? 0 : 1 }));
}

/**
 * Requests whose every byte vppnet decides (loopback instance and af_packet MACs are its own
 * choice) and that are as the design was verified: the bridge's flags and the pods' input ACLs
 * have changed since (a bridge that learns nothing, an input ACL per pod), and are compared with
 * what VPP read back instead (the read-back test below).
 */
const COMPARED = new Set([
  'ip_table_add_del',
  'sw_interface_tag_add_del',
  'sw_interface_set_table',
  'sw_interface_set_l2_bridge',
  'sw_interface_add_del_address',
  'sw_interface_set_flags',
  'ip_route_add_del',
  'dhcp_proxy_config',
  'dhcp_proxy_set_vss',
]);

void describe(
  'service bridge against the VPP 26.06 design transcript',
  { skip: transcriptsAvailable() ? false : SKIP_NO_SHARED },
  () => {
    const transcripts = transcriptsAvailable() ? loadTranscripts('26.06-design') : [];
    const step = (prefix: string) => transcripts.filter((t) => t.file.includes(`/${prefix}-`));

    void it('sends the requests the design was verified with, byte for byte', async () => {
      // What a fresh VPP with the VPC tables (and the pods' veth pairs) would get.
      const given: Resource[] = [
        ...[10, 20].map((t) => ({ kind: 'ip-table', key: keys.ipTable(t), deps: [], value: {} })),
        ...pods.map((p) => ({ kind: 'host-veth', key: keys.hostVeth(p.id), deps: [], value: {} })),
      ];
      // The per-VM rate limits came after the design transcript (service-rate-limit.test.ts), and
      // NAT44-EI replaced its NAT44-ED (nat-descriptors.ts): those requests are not compared.
      const designed = desired.filter((r) => !vmRateLimitDescriptor.is(r));
      const plan = makePlan(designed, given, descriptors);
      assert.deepEqual(plan.pending, []);
      const vpp = transcriptVpp();
      const ctx: ServicesContext = {
        client: vpp,
        interfaces: new InterfaceRegistry(),
        host: NO_HOST_LINKS,
        files: NO_HOST_FILES,
        acls: new AclRegistry(),
        macips: new AclRegistry(MACIP),
      };
      const result = await execute(plan, descriptors, ctx);
      assert.deepEqual(
        result.failed.map((f) => f.error.message),
        [],
      );

      const sent = vpp.requests.filter((c) => COMPARED.has(c.def.name));
      let compared = 0;
      for (const t of ['10', '11', '12', '13', '14'].flatMap(step)) {
        for (const frame of t.frames) {
          const def = definitionByNameCrc(frame.name_crc);
          if (frame.dir !== 'request' || !def || !COMPARED.has(def.name)) continue;
          const recorded = decodeMessage(def, payloadOf(frame));
          const header = {
            clientIndex: recorded.client_index as number,
            context: recorded.context as number,
          };
          const ours = sent
            .filter((c) => c.def === def)
            .map((c) =>
              encodeMessage(def, frame.msg_id, c.input as never, header)
                .subarray(16)
                .toString('hex'),
            );
          assert.ok(
            ours.includes(frame.hex),
            `${t.file}: vppnet sends ${def.name} ${JSON.stringify(recorded)}`,
          );
          compared++;
        }
      }
      // 25 in the design, less the bridge domain, its two ACLs and their two bindings, and its five
      // NAT44-ED requests.
      assert.equal(compared, 15, 'every comparable request of steps 10–14');

      // The design's pods got VPP's default rings; vppnet's get a TX ring of one vector (the rest
      // as designed).
      const afPackets = vpp.requests.filter((c) => c.def.name === 'af_packet_create_v3');
      assert.deepEqual(
        afPackets.map((c) => [c.input.host_if_name, c.input.tx_frames_per_block, c.input.flags]).sort(),
        pods.map((p) => [p.id, 256, 3]).sort(),
      );
    });

    void it('reads the dumps of the verified state back as exactly the desired values', () => {
      const details = new Map<string, Readonly<Record<string, unknown>>[]>();
      for (const t of step('15')) {
        for (const frame of t.frames) {
          const def = definitionByNameCrc(frame.name_crc);
          if (frame.dir !== 'from_vpp' || !def?.name.endsWith('_details')) continue;
          const list = details.get(def.name) ?? [];
          list.push(decodeMessage(def, payloadOf(frame)));
          details.set(def.name, list);
        }
      }
      const of = <M extends MessageDef>(def: M): Message<M>[] =>
        (details.get(def.name) ?? []) as Message<M>[];
      const snapshot: VppSnapshot = {
        ...emptySnapshot(),
        interfaces: InterfaceRegistry.fromDump(of(msg.sw_interface_details)),
        // ip_table_dump is not in the recording: the tables as vppnet names them.
        tables: [
          { table_id: 10, is_ip6: false, name: 'vppnet:vpc:vpc-a' },
          { table_id: 4000, is_ip6: false, name: 'vppnet:services' },
        ],
        routes: new Map([
          [
            'ip4:10',
            // v1 details as the recording has them; the agent reads v2 (with the FIB source).
            of(msg.ip_route_details)
              .filter((r) => r.route.table_id === 10)
              .map((r) => ({ ...r.route, src: FIB_SOURCE_API })),
          ],
        ]),
        bridgeDomains: of(msg.bridge_domain_details),
        acls: of(msg.acl_details),
        // The design used NAT44-ED: read as what an upgraded node holds, to be removed.
        nat: {
          ...NO_NAT,
          ed: {
            ...NO_NAT.ed,
            static: of(msg.nat44_static_mapping_details),
            identity: of(msg.nat44_identity_mapping_details),
          },
        },
        dhcpProxies: of(msg.dhcp_proxy_details),
      };
      const desiredKeys = new Set(desired.map((r) => r.key));
      const actual = [
        ...actualServices(snapshot, { desiredKeys }),
        // The VPC's other routes (the VM's /32) are the overlay's.
        ...actualDataplane(snapshot, { desiredKeys, hostVeths: [], hostVethPrefixes: [] }).filter(
          (r) => r.kind === 'route' && (r.value as { prefix: string }).prefix.startsWith('169.254.'),
        ),
      ];
      const bvi = 'vppnet:services:bvi';
      assert.deepEqual(
        actual.map((r) => r.key).sort(),
        [
          keys.acl('vppnet:pod-in'),
          keys.acl('vppnet:pod-out'),
          keys.bridgeDomain(100),
          keys.bridgePort(bvi),
          keys.bridgePort(tags.podPort('vsdhcp')),
          keys.bridgePort(tags.podPort('vsmd')),
          keys.dhcpProxy(10),
          keys.dhcpVss(10),
          keys.natEdIdentityMapping(10, '169.254.169.1'),
          keys.natEdIdentityMapping(4000, '169.254.169.1'),
          keys.natEdStaticMapping(10, '10.0.0.5'),
          keys.route(10, '169.254.169.254/32'),
        ].sort(),
      );
      // What has changed since the design was verified, and nothing else.
      const differing = actual
        .filter((r) => {
          const want = byKey.get(r.key);
          return !want || !canonicalEqual(want.value, r.value);
        })
        .map((r) => r.key);
      assert.deepEqual(
        differing.sort(),
        [
          keys.acl('vppnet:pod-in'),
          keys.bridgeDomain(100),
          // NAT44-ED's mappings: NAT44-EI's replace them.
          keys.natEdIdentityMapping(10, '169.254.169.1'),
          keys.natEdIdentityMapping(4000, '169.254.169.1'),
          keys.natEdStaticMapping(10, '10.0.0.5'),
        ].sort(),
      );
    });
  },
);
