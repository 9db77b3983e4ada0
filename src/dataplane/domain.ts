/**
 * The dataplane as a domain (reconcile/domain.ts): the kinds shared by the overlay and the
 * service bridge (interfaces and their settings, tables, routes, neighbours, source checks, host
 * files), its part of the snapshot, and what VPP holds of them.
 */
import type { Domain } from '../reconcile/domain.js';
import { actualDataplane } from './actual.js';
import type { DataplaneContext } from './context.js';
import { hostDirectoryDescriptor, socketAccessDescriptor } from './host-file-descriptors.js';
import {
  addressDescriptor,
  adminUpDescriptor,
  hostVethDescriptor,
  interfaceDescriptor,
  interfaceMtuDescriptor,
  interfaceTableDescriptor,
  proxyArpInterfaceDescriptor,
  unnumberedDescriptor,
} from './interface-descriptors.js';
import { ipTableDescriptor, proxyArpDescriptor, routeDescriptor } from './ip-descriptors.js';
import {
  ip6EnableDescriptor,
  ip6LinkLocalDescriptor,
  ip6NdMirrorProxyDescriptor,
  ip6RaConfigDescriptor,
  ip6RaPrefixDescriptor,
} from './ip6-link-descriptors.js';
import {
  ipNeighborConfigDescriptor,
  neighborAnnouncementDescriptor,
  staticNeighborDescriptor,
} from './neighbor-descriptors.js';
import { DATAPLANE_READS, readDataplane, type DataplaneScope, type DataplaneSnapshot } from './snapshot.js';
import { sourceCheckDescriptor } from './source-check-descriptors.js';

export const dataplaneDomain = {
  name: 'dataplane',
  kinds: [
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
  ],
  reads: DATAPLANE_READS,
  read: readDataplane,
  actual: actualDataplane,
} satisfies Domain<DataplaneContext, DataplaneSnapshot, DataplaneScope>;
