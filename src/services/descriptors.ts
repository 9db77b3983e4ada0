/**
 * The kinds the service bridge adds to the dataplane's, and the registry of a pod port's own plans
 * (the attachment manager's): the interface kinds included, as a pod port is an interface with
 * bridge membership and ACLs. The hypervisor's registry (hypervisor/kinds.ts) adds the service
 * kinds to all the others.
 */
import {
  addressDescriptor,
  adminUpDescriptor,
  hostVethDescriptor,
  interfaceDescriptor,
  interfaceMtuDescriptor,
  interfaceTableDescriptor,
  proxyArpInterfaceDescriptor,
  unnumberedDescriptor,
} from '../dataplane/interface-descriptors.js';
import { staticNeighborDescriptor } from '../dataplane/neighbor-descriptors.js';
import type { Descriptor } from '../reconcile/descriptor.js';
import { KindRegistry } from '../reconcile/registry.js';
import { aclBindingDescriptor, aclDescriptor } from '../dataplane/acl-descriptors.js';
import { bridgeDomainDescriptor, bridgePortDescriptor } from './bridge-descriptors.js';
import { bdIpMacDescriptor, l2FibEntryDescriptor } from './bridge-entry-descriptors.js';
import { macipAclDescriptor, macipBindingDescriptor } from './macip-descriptors.js';
import type { ServicesContext } from './context.js';
import { dhcpProxyDescriptor, dhcpVssDescriptor } from './dhcp-descriptors.js';
import {
  natIdentityMappingDescriptor,
  natOutputInterfaceDescriptor,
  natPluginDescriptor,
  natStaticMappingDescriptor,
} from './nat-descriptors.js';
import {
  natEdIdentityMappingDescriptor,
  natEdOutputInterfaceDescriptor,
  natEdStaticMappingDescriptor,
} from './nat-ed-descriptors.js';
import {
  nat66InterfaceDescriptor,
  nat66PluginDescriptor,
  nat66StaticMappingDescriptor,
} from './nat66-descriptors.js';
import { vmRateLimitDescriptor, vmRateTable6Descriptor } from './vm-rate-limit.js';
import { aclSessionTimeoutsDescriptor } from './acl-session-descriptors.js';

/** The kinds the service bridge adds to the dataplane's. */
export const servicesDescriptors: readonly Descriptor<unknown, ServicesContext>[] = [
  bridgeDomainDescriptor,
  bridgePortDescriptor,
  aclDescriptor,
  aclBindingDescriptor,
  macipAclDescriptor,
  macipBindingDescriptor,
  l2FibEntryDescriptor,
  bdIpMacDescriptor,
  natPluginDescriptor,
  natOutputInterfaceDescriptor,
  natStaticMappingDescriptor,
  natIdentityMappingDescriptor,
  // Only read back and removed: what earlier versions made (nat-ed-descriptors.ts).
  natEdOutputInterfaceDescriptor,
  natEdStaticMappingDescriptor,
  natEdIdentityMappingDescriptor,
  nat66PluginDescriptor,
  nat66InterfaceDescriptor,
  nat66StaticMappingDescriptor,
  dhcpProxyDescriptor,
  dhcpVssDescriptor,
  vmRateTable6Descriptor,
  vmRateLimitDescriptor,
  aclSessionTimeoutsDescriptor,
];

/** What a pod port's plan can contain: the interface and everything that hangs off it. */
export const podDescriptors = new KindRegistry<ServicesContext>().register(
  interfaceDescriptor,
  interfaceMtuDescriptor,
  hostVethDescriptor,
  adminUpDescriptor,
  interfaceTableDescriptor,
  addressDescriptor,
  unnumberedDescriptor,
  proxyArpInterfaceDescriptor,
  // The service BVI's static neighbour per pod address.
  staticNeighborDescriptor,
  ...servicesDescriptors,
);
