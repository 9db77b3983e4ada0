/**
 * What the service bridge's descriptors act with: the dataplane context plus the ACL registry
 * (ACL indexes are VPP's choice, so they are looked up by tag at the moment of use).
 */
import type { DataplaneContext } from '../dataplane/context.js';
import type { AclRegistry } from './acl-registry.js';

export interface ServicesContext extends DataplaneContext {
  readonly acls: AclRegistry;
}
