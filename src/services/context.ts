/**
 * What the service bridge's descriptors act with: the dataplane context with the ACL registry
 * (the ACL kinds themselves are the dataplane's: the SRv6 ingress filter uses them too), plus the
 * registry of MACIP ACLs, whose indexes VPP picks from a pool of their own.
 */
import type { AclRegistry } from '../dataplane/acl-registry.js';
import type { AclContext } from '../dataplane/context.js';
import type { PolicerClassifyTables } from './policer-classify-reading.js';

export interface ServicesContext extends AclContext {
  readonly macips: AclRegistry;
  /**
   * Policer-classify bindings, sw_if_index → the IPv4 and L2 tables bound, as the pass's snapshot
   * read them and its ops changed them since (vm-rate-limit.ts): a VM port's create looks its
   * index, and the service BVI's IPv6 rate table, up here rather than dumping every binding once
   * per port. Absent: the create asks VPP.
   */
  readonly policerBindings?: Map<number, PolicerClassifyTables>;
}

export const MACIP = 'MACIP ACL';
