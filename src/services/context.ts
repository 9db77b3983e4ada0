/**
 * What the service bridge's descriptors act with: the dataplane context with the ACL registry.
 * The ACL kinds themselves are the dataplane's (the SRv6 ingress filter uses them too).
 */
import type { AclContext } from '../dataplane/context.js';

export type ServicesContext = AclContext;
