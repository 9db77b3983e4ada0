/**
 * Every kind a hypervisor's reconciler works with — the dataplane's, the SRv6 overlay's and the
 * service bridge's, as each domain lists them — registered once each (a kind registered twice
 * fails at load).
 */
import { dataplaneDomain } from '../dataplane/domain.js';
import { KindRegistry } from '../reconcile/registry.js';
import type { ServicesContext } from '../services/context.js';
import { servicesDomain } from '../services/domain.js';
import { srv6Domain } from '../srv6/domain.js';

/** The domains of a hypervisor, in the order their kinds are registered and their parts read. */
export const hypervisorDomains = [dataplaneDomain, srv6Domain, servicesDomain] as const;

export const hypervisorKinds = new KindRegistry<ServicesContext>().register(
  ...hypervisorDomains.flatMap((d) => d.kinds),
);
