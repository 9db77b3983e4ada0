/**
 * What the service bridge's descriptors act with: the dataplane context with the ACL registry
 * (the ACL kinds themselves are the dataplane's: the SRv6 ingress filter uses them too), plus the
 * registry of MACIP ACLs, whose indexes VPP picks from a pool of their own.
 */
import type { AclRegistry } from '../dataplane/acl-registry.js';
import type { AclContext } from '../dataplane/context.js';

export interface ServicesContext extends AclContext {
  readonly macips: AclRegistry;
  /**
   * IPv4 policer-classify bindings, sw_if_index → table, as the pass's snapshot read them and its
   * ops changed them since (vm-rate-limit.ts): a VM port's create looks its index up here rather
   * than dumping every binding once per port. Absent: the create asks VPP.
   */
  readonly policerBindings?: Map<number, number>;
}

export const MACIP = 'MACIP ACL';
