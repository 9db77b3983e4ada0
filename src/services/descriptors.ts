/**
 * Every descriptor the service bridge needs, the dataplane's interface descriptors included (a pod
 * port is an interface with bridge membership and ACLs), as one map for the attachment manager's
 * own plans. The agent's reconciler merges the service kinds into its full map.
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
import type { DataplaneContext } from '../dataplane/context.js';
import type { Descriptor } from '../reconcile/descriptor.js';
import { aclBindingDescriptor, aclDescriptor } from './acl-descriptors.js';
import { bridgeDomainDescriptor, bridgePortDescriptor } from './bridge-descriptors.js';
import type { ServicesContext } from './context.js';
import { dhcpProxyDescriptor, dhcpVssDescriptor } from './dhcp-descriptors.js';
import {
  natIdentityMappingDescriptor,
  natOutputInterfaceDescriptor,
  natPluginDescriptor,
  natStaticMappingDescriptor,
} from './nat-descriptors.js';

/** The kinds the service bridge adds to the dataplane's. */
export const servicesDescriptors: readonly Descriptor<unknown, ServicesContext>[] = (
  [
    bridgeDomainDescriptor,
    bridgePortDescriptor,
    aclDescriptor,
    aclBindingDescriptor,
    natPluginDescriptor,
    natOutputInterfaceDescriptor,
    natStaticMappingDescriptor,
    natIdentityMappingDescriptor,
    dhcpProxyDescriptor,
    dhcpVssDescriptor,
  ] as Descriptor<never, ServicesContext>[]
).map((d) => d as Descriptor<unknown, ServicesContext>);

/** What a pod port's plan can contain: the interface and everything that hangs off it. */
export const podDescriptors: ReadonlyMap<string, Descriptor<unknown, ServicesContext>> = new Map(
  [
    ...(
      [
        interfaceDescriptor,
        interfaceMtuDescriptor,
        hostVethDescriptor,
        adminUpDescriptor,
        interfaceTableDescriptor,
        addressDescriptor,
        unnumberedDescriptor,
        proxyArpInterfaceDescriptor,
      ] as Descriptor<never, DataplaneContext>[]
    ).map((d) => d as Descriptor<unknown, ServicesContext>),
    ...servicesDescriptors,
  ].map((d) => [d.kind, d]),
);
