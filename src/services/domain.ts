/**
 * The service bridge as a domain (reconcile/domain.ts): its kinds (descriptors.ts), its part of
 * the snapshot, and what VPP holds of them.
 */
import type { Domain } from '../reconcile/domain.js';
import { actualServices } from './actual.js';
import type { ServicesContext } from './context.js';
import { servicesDescriptors } from './descriptors.js';
import { readServices, SERVICES_READS, type ServicesScope, type ServicesSnapshot } from './reading.js';

export const servicesDomain = {
  name: 'services',
  kinds: servicesDescriptors,
  reads: SERVICES_READS,
  read: readServices,
  actual: actualServices,
} satisfies Domain<ServicesContext, ServicesSnapshot, ServicesScope>;
