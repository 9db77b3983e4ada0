/**
 * vppnet's ACLs by tag ↔ VPP's ACL index, for one VPP process. VPP picks an ACL's index when it is
 * created, so descriptors and bindings name ACLs by tag and resolve the index here. Built from the
 * snapshot and kept current as ACLs are created and deleted, like the InterfaceRegistry.
 */
import { isOwnedTag } from '../dataplane/keys.js';

export class AclRegistry {
  readonly #byName = new Map<string, number>();
  readonly #byIndex = new Map<number, string>();

  /**
   * The lowest index with a tag gets the tag as its name; should VPP hold several ACLs with one
   * tag (left behind by a crash between create and record), the others are named "tag#index" so
   * that they show up as resources of their own and are deleted.
   */
  static fromDump(details: Iterable<{ readonly acl_index: number; readonly tag: string }>): AclRegistry {
    const r = new AclRegistry();
    for (const d of [...details].sort((a, b) => a.acl_index - b.acl_index)) {
      if (!isOwnedTag(d.tag)) continue;
      r.set(r.has(d.tag) ? duplicateAclName(d.tag, d.acl_index) : d.tag, d.acl_index);
    }
    return r;
  }

  set(name: string, aclIndex: number): void {
    this.#byName.set(name, aclIndex);
    this.#byIndex.set(aclIndex, name);
  }

  remove(name: string): void {
    const idx = this.#byName.get(name);
    this.#byName.delete(name);
    if (idx !== undefined) this.#byIndex.delete(idx);
  }

  /** The ACL index of a name; throws a clear error when VPP has no such ACL. */
  index(name: string): number {
    const idx = this.#byName.get(name);
    if (idx === undefined) throw new Error(`ACL ${name} does not exist in VPP`);
    return idx;
  }

  has(name: string): boolean {
    return this.#byName.has(name);
  }

  /** The name of an index: vppnet's tag, or "acl#<index>" for an ACL that is not vppnet's. */
  nameOf(aclIndex: number): string {
    return this.#byIndex.get(aclIndex) ?? `acl#${aclIndex}`;
  }
}

export function duplicateAclName(tag: string, aclIndex: number): string {
  return `${tag}#${aclIndex}`;
}
