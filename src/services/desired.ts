/**
 * The service bridge as VPP resources (../shared/vpp-services.md, verified on VPP 26.06):
 * - a services IPv4 table S and an L2 bridge whose BVI loopback holds the gateway address in S;
 * - per VPC table X, /32 routes for the metadata (and DNS) address that look up again in S;
 * - NAT44-ED output on the BVI, an address-only static mapping per VM port (its service address),
 *   identity mappings for the gateway address in every VPC table and in S; no address pool;
 * - per VPC a DHCP relay to the DHCP pod, with the VPC's name as the option 82 VPN id;
 * - the pod ACLs and, per attached pod, its port (pod-port.ts).
 */
import type { AgentConfig, ServicesConfig } from '../config/model.js';
import type {
  AddressValue,
  AdminUpValue,
  InterfaceTableValue,
  InterfaceValue,
} from '../dataplane/interface-descriptors.js';
import type { IpTableValue, RouteValue } from '../dataplane/ip-descriptors.js';
import { keys, tableNames, tags } from '../dataplane/keys.js';
import type { Resource } from '../reconcile/resource.js';
import { derivedMac } from '../dataplane/names.js';
import { ipRule, type AclValue } from './acl-descriptors.js';
import { PORT_TYPE, type BridgeDomainValue, type BridgePortValue } from './bridge-descriptors.js';
import type { DhcpProxyValue, DhcpVssValue } from './dhcp-descriptors.js';
import type {
  NatIdentityMappingValue,
  NatOutputInterfaceValue,
  NatPluginValue,
  NatStaticMappingValue,
} from './nat-descriptors.js';
import { podPortResources, type PodPortSpec } from './pod-port.js';

/** NAT sessions per thread: a few hundred VMs talking to a handful of service pods. */
export const NAT_SESSIONS = 16384;

const ANY = '0.0.0.0/0';

export interface ServicesDesiredInput {
  /** VM port name → its service address (the allocator's answer); ports without one get no mapping. */
  readonly addresses: ReadonlyMap<string, string>;
  /** Attached service pods. */
  readonly pods: readonly PodPortSpec[];
}

/** The pod ACLs: VMs reach the pods and get answers; pods never open connections to VMs. */
export function podAcls(services: ServicesConfig): { readonly out: AclValue; readonly in: AclValue } {
  const vms = `${services.vmAddressRange.address}/${services.vmAddressRange.len}`;
  return {
    // Output of the pod port = what the pod receives: a packet from a VM opens a reflexive session
    // whose replies pass the input ACL.
    out: { tag: tags.podAclOut(), rules: [ipRule('permit+reflect', vms, ANY), ipRule('permit', ANY, ANY)] },
    // Input = what the pod sends: nothing new towards VM service addresses.
    in: { tag: tags.podAclIn(), rules: [ipRule('deny', ANY, vms), ipRule('permit', ANY, ANY)] },
  };
}

function res<V>(kind: string, key: string, deps: string[], value: V): Resource<V> {
  return { kind, key, deps, value };
}

export function desiredServices(config: AgentConfig, input: ServicesDesiredInput): Resource[] {
  const services = config.services;
  if (!services) return [];
  const out: Resource[] = [];
  const S = services.table;
  const sKey = keys.ipTable(S);
  const gatewayAddress = services.gateway.address;

  // Services table, bridge and BVI, in the order the design was verified in.
  out.push(res<IpTableValue>('ip-table', sKey, [], { table: S, ip6: false, name: tableNames.services() }));
  const bdKey = keys.bridgeDomain(services.bridgeDomain);
  out.push(
    res<BridgeDomainValue>('bridge-domain', bdKey, [], {
      bd: services.bridgeDomain,
      flood: true,
      uuFlood: true,
      forward: true,
      learn: true,
      arpTerm: false,
      arpUfwd: false,
      macAge: 0,
      tag: tags.servicesBridge(),
    }),
  );
  const bvi = tags.servicesBvi();
  const bviKey = keys.interface(bvi);
  out.push(
    res<InterfaceValue>('interface', bviKey, [], { type: 'loopback', name: bvi, mac: derivedMac(bvi) }),
  );
  const bviTable = keys.ifaceTable(bvi);
  out.push(res<InterfaceTableValue>('iface-table', bviTable, [bviKey, sKey], { iface: bvi, table: S }));
  const bviPort = keys.bridgePort(bvi);
  out.push(
    res<BridgePortValue>('bridge-port', bviPort, [bviKey, bdKey, bviTable], {
      iface: bvi,
      bd: services.bridgeDomain,
      portType: PORT_TYPE.L2_API_PORT_TYPE_BVI,
      shg: 0,
    }),
  );
  const gwPrefix = `${gatewayAddress}/${services.gateway.len}`;
  const bviAddress = keys.address(bvi, gwPrefix);
  out.push(
    res<AddressValue>('address', bviAddress, [bviKey, bviTable, bviPort], { iface: bvi, prefix: gwPrefix }),
  );
  out.push(res<AdminUpValue>('admin-up', keys.adminUp(bvi), [bviKey], { iface: bvi }));

  // Pod ACLs.
  const acls = podAcls(services);
  for (const acl of [acls.out, acls.in]) out.push(res<AclValue>('acl', keys.acl(acl.tag), [], acl));

  // VPC side: only the service addresses themselves lead into S.
  const serviceAddresses = [
    services.metadataAddress,
    ...(services.dnsAddress === undefined ? [] : [services.dnsAddress]),
  ];
  for (const vpc of config.vpcs) {
    const xKey = keys.ipTable(vpc.table);
    for (const address of serviceAddresses) {
      const prefix = `${address}/32`;
      out.push(
        res<RouteValue>('route', keys.route(vpc.table, prefix), [xKey, sKey], {
          table: vpc.table,
          ip6: false,
          prefix,
          paths: [{ lookupTable: S }],
        }),
      );
    }
  }

  // NAT44-ED: the output feature on the BVI translates VMs' sources to their service addresses.
  const natKey = keys.natPlugin();
  out.push(res<NatPluginValue>('nat44-ed', natKey, [], { sessions: NAT_SESSIONS }));
  out.push(
    res<NatOutputInterfaceValue>('nat-output', keys.natOutputInterface(bvi), [natKey, bviKey, bviAddress], {
      iface: bvi,
    }),
  );
  const vpcByName = new Map(config.vpcs.map((v) => [v.name, v]));
  for (const port of config.ports) {
    const external = input.addresses.get(port.name);
    const vpc = vpcByName.get(port.vpc);
    if (external === undefined || vpc === undefined) continue;
    out.push(
      res<NatStaticMappingValue>(
        'nat-static',
        keys.natStaticMapping(vpc.table, port.ip),
        [natKey, keys.ipTable(vpc.table)],
        {
          vrf: vpc.table,
          local: port.ip,
          external,
          tag: tags.vmPort(port.name),
        },
      ),
    );
  }
  // Relayed DHCP leaves through the BVI with source = gateway and the VM port's table: without
  // an identity mapping NAT drops it ("out of ports").
  for (const table of [S, ...config.vpcs.map((v) => v.table)]) {
    out.push(
      res<NatIdentityMappingValue>(
        'nat-identity',
        keys.natIdentityMapping(table, gatewayAddress),
        [natKey, keys.ipTable(table)],
        {
          vrf: table,
          address: gatewayAddress,
          tag: tags.natGateway(),
        },
      ),
    );
  }

  // DHCP relay per VPC.
  if (services.dhcpServer !== undefined) {
    for (const vpc of config.vpcs) {
      const xKey = keys.ipTable(vpc.table);
      const proxyKey = keys.dhcpProxy(vpc.table);
      out.push(
        res<DhcpProxyValue>('dhcp-proxy', proxyKey, [xKey, sKey], {
          rxTable: vpc.table,
          src: gatewayAddress,
          servers: [{ table: S, address: services.dhcpServer }],
        }),
      );
      out.push(
        res<DhcpVssValue>('dhcp-vss', keys.dhcpVss(vpc.table), [xKey, proxyKey], {
          table: vpc.table,
          vpnId: vpc.name,
        }),
      );
    }
  }

  for (const pod of input.pods) out.push(...podPortResources(pod, services));
  return out;
}
