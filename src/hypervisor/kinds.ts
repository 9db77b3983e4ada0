/**
 * Every kind a hypervisor's reconciler works with — the dataplane's, the SRv6 overlay's and the
 * service bridge's — registered once each (a kind registered twice fails at load).
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
import { hostDirectoryDescriptor, socketAccessDescriptor } from '../dataplane/host-file-descriptors.js';
import { ipTableDescriptor, proxyArpDescriptor, routeDescriptor } from '../dataplane/ip-descriptors.js';
import {
  ipNeighborConfigDescriptor,
  neighborAnnouncementDescriptor,
} from '../dataplane/neighbor-descriptors.js';
import { KindRegistry } from '../reconcile/registry.js';
import type { ServicesContext } from '../services/context.js';
import { servicesDescriptors } from '../services/descriptors.js';
import {
  encapSourceDescriptor,
  hopLimitDescriptor,
  localSidDescriptor,
  policyDescriptor,
  steeringDescriptor,
} from '../srv6/descriptors.js';

export const hypervisorKinds = new KindRegistry<ServicesContext>().register(
  ipTableDescriptor,
  routeDescriptor,
  proxyArpDescriptor,
  interfaceDescriptor,
  interfaceMtuDescriptor,
  hostDirectoryDescriptor,
  socketAccessDescriptor,
  hostVethDescriptor,
  adminUpDescriptor,
  interfaceTableDescriptor,
  addressDescriptor,
  unnumberedDescriptor,
  proxyArpInterfaceDescriptor,
  ipNeighborConfigDescriptor,
  neighborAnnouncementDescriptor,
  encapSourceDescriptor,
  hopLimitDescriptor,
  localSidDescriptor,
  policyDescriptor,
  steeringDescriptor,
  ...servicesDescriptors,
);
