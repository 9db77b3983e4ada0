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
  ip6EnableDescriptor,
  ip6LinkLocalDescriptor,
  ip6NdMirrorProxyDescriptor,
  ip6RaConfigDescriptor,
  ip6RaPrefixDescriptor,
} from '../dataplane/ip6-link-descriptors.js';
import {
  ipNeighborConfigDescriptor,
  neighborAnnouncementDescriptor,
  staticNeighborDescriptor,
} from '../dataplane/neighbor-descriptors.js';
import { sourceCheckDescriptor } from '../dataplane/source-check-descriptors.js';
import { KindRegistry } from '../reconcile/registry.js';
import type { ServicesContext } from '../services/context.js';
import { servicesDescriptors } from '../services/descriptors.js';
import {
  encapSourceDescriptor,
  hopLimitDescriptor,
  localSidDescriptor,
  policyDescriptor,
  steering6Descriptor,
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
  sourceCheckDescriptor,
  ipNeighborConfigDescriptor,
  neighborAnnouncementDescriptor,
  ip6EnableDescriptor,
  ip6LinkLocalDescriptor,
  ip6RaPrefixDescriptor,
  ip6RaConfigDescriptor,
  ip6NdMirrorProxyDescriptor,
  staticNeighborDescriptor,
  encapSourceDescriptor,
  hopLimitDescriptor,
  localSidDescriptor,
  policyDescriptor,
  steeringDescriptor,
  steering6Descriptor,
  ...servicesDescriptors,
);
