/**
 * vppnet's ACLs by tag ↔ VPP's ACL index, for one VPP process. VPP picks an ACL's index when it is
 * created, so descriptors and bindings name ACLs by tag and resolve the index here. Built from the
 * snapshot and kept current as ACLs are created and deleted, like the InterfaceRegistry.
 */
import { isOwnedTag } from './keys.js';
import { NameIndex } from './name-index.js';

export class AclRegistry extends NameIndex {
  /** `what`: 'ACL', or 'MACIP ACL' for the acl plugin's other pool, which has the same rules. */
  constructor(what = 'ACL') {
    super(what);
  }

  /**
   * The lowest index with a tag gets the tag as its name; should VPP hold several ACLs with one
   * tag (left behind by a crash between create and record), the others are named "tag#index" so
   * that they show up as resources of their own and are deleted.
   */
  static fromDump(
    details: Iterable<{ readonly acl_index: number; readonly tag: string }>,
    what = 'ACL',
  ): AclRegistry {
    const r = new AclRegistry(what);
    for (const d of [...details].sort((a, b) => a.acl_index - b.acl_index)) {
      if (!isOwnedTag(d.tag)) continue;
      r.set(r.has(d.tag) ? duplicateAclName(d.tag, d.acl_index) : d.tag, d.acl_index);
    }
    return r;
  }

  /** The name of an index: vppnet's tag, or "acl#<index>" for an ACL that is not vppnet's. */
  nameOf(aclIndex: number): string {
    return this.lookupName(aclIndex) ?? `acl#${aclIndex}`;
  }
}

export function duplicateAclName(tag: string, aclIndex: number): string {
  return `${tag}#${aclIndex}`;
}
