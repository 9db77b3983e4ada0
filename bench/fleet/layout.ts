/**
 * The fleet bench/fleet puts in etcd, computed rather than stored: a node, VPC or endpoint is a
 * function of its index, so the benchmark can write a million records and know what every
 * agent's VPP must hold without keeping the fleet in memory.
 *
 * - Nodes hv0 … hv{nodes-1}; the first `agents` of them run a real agent in the benchmark.
 * - VPCs vpc-0 … vpc-{vpcs-1} (id = index + 1, table = id, subnet 10.0.0.0/16). The first
 *   `hv0Vpcs` are hv0's: they hold `hv0Endpoints` endpoints in all (10 × 10k by default). Every
 *   other agent has a port in one of them (agent a in hv0's VPC a mod hv0Vpcs) and in
 *   `smallVpcsPerAgent` VPCs of its own beyond them. The remaining endpoints are spread evenly
 *   over the VPCs after hv0's.
 * - A VPC's first endpoints are its member agents' ports (one each, in member order); the others
 *   live on non-agent nodes, `hostsPerVpc` distinct ones per VPC (so a node steers to about that
 *   many SIDs per VPC, as many policies).
 * - Every node has the same BSID prefix (BSIDs are local), outside every locator.
 */
import { ip6AddressInPrefix, intToIp4, type Ip4Prefix } from '../../src/net/ip.js';
import type { KeySchema } from '../../src/datastore/keys.js';

export interface FleetSize {
  readonly nodes: number;
  readonly vpcs: number;
  readonly endpoints: number;
  readonly agents: number;
  readonly hv0Vpcs: number;
  readonly hv0Endpoints: number;
  readonly hostsPerVpc: number;
  readonly smallVpcsPerAgent: number;
}

export const DEFAULT_SIZE: FleetSize = {
  nodes: 10_000,
  vpcs: 100_000,
  endpoints: 1_000_000,
  agents: 20,
  hv0Vpcs: 10,
  hv0Endpoints: 100_000,
  hostsPerVpc: 100,
  smallVpcsPerAgent: 2,
};

/** The underlay NIC every simulator starts with. */
export const UNDERLAY_INTERFACE = 'GigabitEthernet0/0/0';
const BSID_PREFIX = 'fd00:b51d::/64';
const SUBNET_BASE = 10 << 24;
/** Host offsets inside 10.0.0.0/16: .0 is the network, .1 the gateway, the last the broadcast. */
const FIRST_HOST = 2;
export const MAX_ENDPOINTS_PER_VPC = 65_536 - FIRST_HOST - 1;

export interface Record {
  readonly key: string;
  readonly value: string;
}

const hex = (n: number): string => n.toString(16);

export class FleetLayout {
  readonly size: FleetSize;
  readonly #smallBase: number;
  readonly #smallCount: number;

  constructor(size: FleetSize) {
    const s = size;
    const int = (name: keyof FleetSize, min: number): void => {
      if (!Number.isInteger(s[name]) || s[name] < min)
        throw new Error(`fleet size: ${name} must be an integer ≥ ${min}, got ${s[name]}`);
    };
    int('agents', 1);
    int('nodes', s.agents + 1);
    if (s.nodes > 2 ** 32) throw new Error(`fleet size: nodes must be at most 2^32, got ${s.nodes}`);
    int('hv0Vpcs', 1);
    int('smallVpcsPerAgent', 0);
    int('vpcs', s.hv0Vpcs + Math.max(1, (s.agents - 1) * s.smallVpcsPerAgent));
    if (s.vpcs > 0xffffff) throw new Error(`fleet size: vpcs must be at most ${0xffffff} (VPC ids)`);
    int('hostsPerVpc', 1);
    // Each of hv0's VPCs needs an endpoint per member agent's port; each other VPC at least one.
    int('hv0Endpoints', s.hv0Vpcs * (1 + Math.ceil((s.agents - 1) / s.hv0Vpcs)));
    int('endpoints', s.hv0Endpoints + (s.vpcs - s.hv0Vpcs));
    if (Math.ceil(s.hv0Endpoints / s.hv0Vpcs) > MAX_ENDPOINTS_PER_VPC / 2)
      throw new Error(
        `fleet size: ${s.hv0Endpoints} endpoints in ${s.hv0Vpcs} VPCs exceed 10.0.0.0/16 (with room for added ones)`,
      );
    this.size = s;
    this.#smallBase = s.hv0Vpcs;
    this.#smallCount = s.vpcs - s.hv0Vpcs;
  }

  get recordCount(): number {
    return this.size.nodes + this.size.vpcs + this.size.endpoints + this.portCount;
  }

  get portCount(): number {
    let n = 0;
    for (let a = 0; a < this.size.agents; a++) n += this.agentVpcs(a).length;
    return n;
  }

  nodeName(i: number): string {
    return `hv${i}`;
  }
  vpcName(j: number): string {
    return `vpc-${j}`;
  }
  vpcId(j: number): number {
    return j + 1;
  }
  /** The VPC's table on every node (the record leaves it to default: the id). */
  vpcTable(j: number): number {
    return this.vpcId(j);
  }

  locator(i: number): { address: string; len: number } {
    return { address: `fc00:${hex(Math.floor(i / 65536))}:${hex(i % 65536)}::`, len: 48 };
  }
  /** Node i's End.DT4 SID for VPC j: its locator + the VPC id (derive.ts's rule). */
  sid(i: number, j: number): string {
    return ip6AddressInPrefix(this.locator(i), BigInt(this.vpcId(j)));
  }

  /** The VPCs agent a has ports in, in port order. */
  agentVpcs(a: number): number[] {
    const s = this.size;
    if (a === 0) return Array.from({ length: s.hv0Vpcs }, (_, j) => j);
    const own = Array.from(
      { length: s.smallVpcsPerAgent },
      (_, x) => this.#smallBase + (a - 1) * s.smallVpcsPerAgent + x,
    );
    return [a % s.hv0Vpcs, ...own];
  }

  /** The agents with a port in VPC j, in the order their ports take its first endpoints. */
  members(j: number): number[] {
    const s = this.size;
    if (j < s.hv0Vpcs) {
      const out = [0];
      for (let a = 1; a < s.agents; a++) if (a % s.hv0Vpcs === j) out.push(a);
      return out;
    }
    if (s.smallVpcsPerAgent === 0) return [];
    const a = 1 + Math.floor((j - this.#smallBase) / s.smallVpcsPerAgent);
    return a < s.agents ? [a] : [];
  }

  endpointCount(j: number): number {
    const s = this.size;
    if (j < s.hv0Vpcs) return spread(s.hv0Endpoints, s.hv0Vpcs, j);
    return spread(s.endpoints - s.hv0Endpoints, this.#smallCount, j - this.#smallBase);
  }

  /** Endpoint k of a VPC: the /32 at host offset k in 10.0.0.0/16. */
  endpointPrefix(k: number): Ip4Prefix {
    if (k < 0 || k >= MAX_ENDPOINTS_PER_VPC) throw new Error(`endpoint index ${k} outside 10.0.0.0/16`);
    return { address: intToIp4(SUBNET_BASE + FIRST_HOST + k), len: 32 };
  }

  /** The node endpoint k of VPC j starts on. */
  initialHost(j: number, k: number): number {
    const members = this.members(j);
    if (k < members.length) return members[k] as number;
    const h = Math.min(this.size.hostsPerVpc, this.size.nodes - this.size.agents);
    return this.size.agents + ((j * h + (k % h)) % (this.size.nodes - this.size.agents));
  }

  /** The non-agent node after `host` (a VM migrating there). */
  nextHost(host: number): number {
    const others = this.size.nodes - this.size.agents;
    return this.size.agents + ((host - this.size.agents + 1) % others);
  }

  /** Agent a's VM port in VPC j: its name, interface and endpoint index. */
  port(a: number, j: number): { name: string; interface: string; endpoint: number } {
    const slot = this.agentVpcs(a).indexOf(j);
    if (slot < 0) throw new Error(`agent ${a} has no port in VPC ${j}`);
    return { name: `p${j}`, interface: portInterface(slot), endpoint: this.members(j).indexOf(a) };
  }

  /** The interfaces agent a's simulator starts with: the underlay and one per port. */
  interfaces(a: number): string[] {
    return [UNDERLAY_INTERFACE, ...this.agentVpcs(a).map((_, slot) => portInterface(slot))];
  }

  nodeValue(i: number): string {
    return JSON.stringify({
      underlay: {
        interface: UNDERLAY_INTERFACE,
        address: `2001:db8:${hex(Math.floor(i / 65536))}:${hex(i % 65536)}::2/64`,
        gateway: `2001:db8:${hex(Math.floor(i / 65536))}:${hex(i % 65536)}::1`,
      },
      srv6: { locator: `${this.locator(i).address}/48`, bsidPrefix: BSID_PREFIX },
    });
  }

  vpcValue(j: number): string {
    return JSON.stringify({ id: this.vpcId(j), subnets: ['10.0.0.0/16'], gateway: '10.0.0.1' });
  }

  portValue(a: number, j: number): string {
    const p = this.port(a, j);
    const slot = this.agentVpcs(a).indexOf(j);
    const mac = `52:54:${[a >> 16, (a >> 8) & 255, a & 255, slot].map((b) => hex(b).padStart(2, '0')).join(':')}`;
    return JSON.stringify({
      vpc: this.vpcName(j),
      mac,
      ip: this.endpointPrefix(p.endpoint).address,
      attach: { type: 'interface', name: p.interface },
    });
  }

  endpointValue(node: number): string {
    return JSON.stringify({ node: this.nodeName(node) });
  }

  /** Every record of the fleet, nodes first, then VPCs, ports, endpoints (VPC by VPC). */
  *records(schema: KeySchema): Generator<Record> {
    const s = this.size;
    for (let i = 0; i < s.nodes; i++) yield { key: schema.node(this.nodeName(i)), value: this.nodeValue(i) };
    for (let j = 0; j < s.vpcs; j++) yield { key: schema.vpc(this.vpcName(j)), value: this.vpcValue(j) };
    for (let a = 0; a < s.agents; a++)
      for (const j of this.agentVpcs(a))
        yield {
          key: schema.port(this.nodeName(a), this.port(a, j).name),
          value: this.portValue(a, j),
        };
    for (let j = 0; j < s.vpcs; j++) {
      const vpc = this.vpcName(j);
      const n = this.endpointCount(j);
      for (let k = 0; k < n; k++)
        yield {
          key: schema.endpoint(vpc, this.endpointPrefix(k)),
          value: this.endpointValue(this.initialHost(j, k)),
        };
    }
  }
}

function portInterface(slot: number): string {
  return `GigabitEthernet0/1/${slot}`;
}

/** The share of `total` the i-th of `n` parts gets when spread as evenly as possible. */
function spread(total: number, n: number, i: number): number {
  return Math.floor(total / n) + (i < total % n ? 1 : 0);
}
