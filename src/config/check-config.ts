/**
 * The check pass: what the schema cannot say of one field alone, over the whole config at once —
 * overlaps, reserved ranges, SIDs in the locator, references between sections, uniqueness, and
 * the defaults taken from other fields — turning the structurally valid input into AgentConfig.
 * Each section's part is in its own module; this is their order and what they share.
 */
import type { Checker } from './checker.js';
import { checkNode } from './check-node.js';
import { checkPorts, type PortItem } from './check-ports.js';
import { checkRemoteRoutes } from './check-routes.js';
import { checkServices, checkServicesIp6AgainstNode } from './check-services.js';
import { checkVpcs, type Item } from './check-vpcs.js';
import { localAddressesOf } from './lanes.js';
import type { AgentConfig } from './model.js';
import type { NodeInput } from './schema/node.js';
import type { RemoteRouteInput } from './schema/remote-route.js';
import type { ServicesInput } from './schema/services.js';
import type { VpcInput } from './schema/vpc.js';

/** The sections and list items the schema accepted; what it refused is already reported. */
export interface StructuredConfig {
  readonly node: NodeInput | undefined;
  /** Absent: no service bridge; `false`: present but refused by the schema. */
  readonly services: ServicesInput | undefined | false;
  readonly vpcs: readonly Item<VpcInput>[];
  /**
   * Every VPC name written, valid or not: a reference to a VPC that is declared but invalid is
   * not an error of its own (its problems are reported, and "no VPC named x" would mislead).
   */
  readonly declared: ReadonlySet<string>;
  readonly ports: readonly PortItem[];
  readonly remoteRoutes: readonly Item<RemoteRouteInput>[];
}

export function checkConfig(c: Checker, input: StructuredConfig): AgentConfig | undefined {
  const node = input.node && checkNode(c, input.node);
  const services = input.services ? checkServices(c, input.services) : undefined;
  const vpcs = checkVpcs(c, input.vpcs, node, services);
  const ports = checkPorts(c, input.ports, vpcs, input.declared, node?.vhostUser, node, services?.ip6);
  const remoteRoutes = checkRemoteRoutes(c, input.remoteRoutes, vpcs, node, input.declared, {
    local: localAddressesOf(ports),
    servicesGateway: services?.gateway,
    servicesIp6: services?.ip6,
  });
  if (node && services?.ip6) checkServicesIp6AgainstNode(c, services.ip6, node);
  if (!node || input.services === false) return undefined;
  return { node, vpcs, ports, remoteRoutes, services };
}
