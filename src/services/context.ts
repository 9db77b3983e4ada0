/**
 * What the service bridge's descriptors act with: the dataplane context with the ACL registry
 * (the ACL kinds themselves are the dataplane's: the SRv6 ingress filter uses them too), plus the
 * registry of MACIP ACLs, whose indexes VPP picks from a pool of their own.
 */
import type { AclRegistry } from '../dataplane/acl-registry.js';
import type { AclContext } from '../dataplane/context.js';

export interface ServicesContext extends AclContext {
  readonly macips: AclRegistry;
}

export const MACIP = 'MACIP ACL';
