/**
 * vppnet's side of the packet-rate benchmark: the agent config that programs the VPC, its ports,
 * remote routes and service bridge (topology.ts has the addresses), checked by the agent's own
 * validator, and its dual-stack variant.
 */
import type { AgentConfig, RemoteRouteConfig } from '../../src/config/model.js';
import { validateConfig } from '../../src/config/validate.js';
import { bigIntToIp6, ip6ToBigInt } from '../../src/net/ip.js';
import { DT6_OFFSET, SERVICES6, VM, VM6, VPPNET, VPPNET6, type PortSet } from './topology.js';

export interface VmMacs {
  readonly vm1: string;
  readonly vm2: string;
}

/** vppnet's configuration as the YAML file would hold it (printed in --nic mode). */
export function vppnetConfigInput(ports: PortSet, macs: VmMacs): Record<string, unknown> {
  return {
    node: {
      name: 'packet-rate',
      underlay: {
        interface: ports.underlay,
        address: VPPNET.underlayAddress,
        gateway: VPPNET.underlayGateway,
        // A jumbo underlay, so that the VPC MTU vppnet derives from it (− 40 B of SRv6) and sets on
        // the VM ports passes IMIX's 1518 B frames as the hand ports (pg's 9000) do. With the
        // default 1500 the ports get 1460: IPv4 is fragmented, IPv6 dropped (packet too big), and
        // the rows would measure that instead of the path.
        mtu: VPPNET.underlayMtu,
      },
      srv6: { locator: VPPNET.locator, hopLimit: VPPNET.hopLimit },
    },
    vpcs: [{ name: VPPNET.vpc, id: VPPNET.vpcId, subnets: [VM.subnet], gateway: VM.gateway }],
    ports: [
      {
        name: 'vm1',
        vpc: VPPNET.vpc,
        mac: macs.vm1,
        ip: VM.vm1,
        attach: { type: 'interface', name: ports.vm1 },
      },
      {
        name: 'vm2',
        vpc: VPPNET.vpc,
        mac: macs.vm2,
        ip: VM.vm2,
        attach: { type: 'interface', name: ports.vm2 },
      },
    ],
    remoteRoutes: VPPNET.remoteRoutes.map((r) => ({ vpc: VPPNET.vpc, prefix: r.prefix, sid: r.sid })),
    services: {
      table: VPPNET.servicesTable,
      bridgeDomain: VPPNET.bridgeDomain,
      // The rows measure forwarding at line rate: a VM's policer (1 Mbit/s by default) would drop
      // nearly all of vm-to-metadata's packets. The hand side has no policer either.
      vmLimits: { rateKbps: 0 },
    },
  };
}

export function vppnetConfig(ports: PortSet, macs: VmMacs): AgentConfig {
  const config = validateConfig(vppnetConfigInput(ports, macs), 'packet-rate');
  const vpc = config.vpcs[0];
  // The paths' packets are built for these; a change in vppnet's defaults must show up here.
  if (vpc?.sid !== VPPNET.localSid || vpc.table !== VPPNET.table)
    throw new Error(
      `vppnet derived SID ${vpc?.sid} / table ${vpc?.table}, expected ${VPPNET.localSid} / ${VPPNET.table}`,
    );
  return config;
}

/**
 * vppnet's configuration with the VPC dual-stack: its IPv6 /64, End.DT6 SID and gateway
 * link-local, the ports' IPv6 addresses and IPv6 remote routes to the remote DT6 SIDs, on top of
 * the IPv4 configuration (which stays what the IPv4 paths measure). Built as an AgentConfig
 * rather than YAML because the config file's IPv6 fields are being added in parallel (ds-model);
 * every IPv6 value is explicit, so nothing depends on their defaults.
 */
export function vppnetDualStackConfig(ports: PortSet, macs: VmMacs): AgentConfig {
  const config = vppnetConfig(ports, macs);
  // The paths' packets are built for this SID; it must follow the DT6 rule from the DT4 SID.
  if (bigIntToIp6(ip6ToBigInt(VPPNET.localSid) + DT6_OFFSET) !== VPPNET6.localSid)
    throw new Error(`${VPPNET6.localSid} is not the End.DT6 function of ${VPPNET.localSid}`);
  const ip6Of: Readonly<Record<string, string>> = { vm1: VM6.vm1, vm2: VM6.vm2 };
  const [address, len] = VM6.subnet.split('/');
  const routes6: RemoteRouteConfig[] = VPPNET6.remoteRoutes.map((r) => {
    const [a, l] = r.prefix.split('/');
    return { vpc: VPPNET.vpc, prefix: { address: a as string, len: Number(l) }, family: 6, sid: r.sid };
  });
  return {
    ...config,
    vpcs: config.vpcs.map((v) =>
      v.name === VPPNET.vpc
        ? {
            ...v,
            subnets6: [{ address: address as string, len: Number(len) }],
            sid6: VPPNET6.localSid,
            gatewayLinkLocal: VM6.gatewayLinkLocal,
          }
        : v,
    ),
    ports: config.ports.map((p) => ({ ...p, ip6: ip6Of[p.name] })),
    remoteRoutes: [...config.remoteRoutes, ...routes6],
    // Metadata over IPv6 (vm-to-metadata-ip6), no DNS: the path measures one service address.
    services: config.services && {
      ...config.services,
      ip6: {
        gateway: prefixOf(SERVICES6.vppnet.gateway),
        vmAddressRange: prefixOf(SERVICES6.vppnet.vmAddressRange),
        metadataAddress: SERVICES6.vppnet.metadata,
        dnsAddress: undefined,
      },
    },
  };
}

function prefixOf(text: string): { address: string; len: number } {
  const [address, len] = text.split('/');
  return { address: address as string, len: Number(len) };
}
