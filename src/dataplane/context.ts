/**
 * What descriptors get to act with: the VPP client, the interface registry of this VPP process,
 * and the host-side operations for links VPP takes over (veth pairs into network namespaces).
 */
import type { VppApi } from '../vpp/client/vpp-api.js';
import type { AclRegistry } from './acl-registry.js';
import type { InterfaceRegistry } from './interface-registry.js';

export interface HostLinks {
  /** Creates a veth pair whose peer sits in `netns` as `ifname` with `mac`; idempotent for an equal pair. */
  createVeth(spec: {
    hostName: string;
    netns: string;
    ifname: string;
    mac: string;
    mtu?: number;
  }): Promise<void>;
  /** Deletes the host end (the peer goes with it); absent is fine. */
  deleteVeth(hostName: string): Promise<void>;
  /** Host ends of veth pairs vppnet created (by name prefix), with their peers' netns when known. */
  listVeths(prefix: string): Promise<readonly string[]>;
  /**
   * Cuts these existing host ends off from the host's stack again, idempotently (createVeth does
   * it for a new pair): for pairs made before vppnet did all of it, and whatever undid it since.
   */
  keepIsolated(hostNames: readonly string[]): Promise<void>;
}

/** A file's owner and permission bits, as stat(2) gives them. */
export interface FileFacts {
  readonly type: 'socket' | 'directory' | 'other';
  readonly uid: number;
  readonly gid: number;
  /** Permission bits only (mode & 0o777). */
  readonly mode: number;
}

/**
 * The host files vppnet manages next to VPP: the directories of vhost-user sockets and who may
 * open the sockets VPP creates. Paths are the same in the agent's view as in VPP's (both mount
 * the host's /run/vppnet).
 */
export interface HostFiles {
  /** stat(2) without following a final symlink; undefined when the path does not exist. */
  stat(path: string): Promise<FileFacts | undefined>;
  /**
   * Creates the directory and any missing parents with `mode` (and `gid`); an existing one is fine.
   * A component replaced by something other than a directory before its chown and chmod is refused.
   */
  makeDirectory(path: string, mode: number, gid: number | undefined): Promise<void>;
  /**
   * chown (an undefined id stays as it is) and chmod a socket, never following a final symlink:
   * anything but a socket at the path by then is refused and left alone.
   */
  setAccess(
    path: string,
    access: { readonly uid: number | undefined; readonly gid: number | undefined; readonly mode: number },
  ): Promise<void>;
}

export interface DataplaneContext {
  readonly client: VppApi;
  readonly interfaces: InterfaceRegistry;
  readonly host: HostLinks;
  readonly files: HostFiles;
}

/** For contexts that manage no host files (a pod's port): any use is a bug and says so. */
export const NO_HOST_FILES: HostFiles = {
  stat: (path) => Promise.reject(new Error(`no host files in this context (stat ${path})`)),
  makeDirectory: (path) => Promise.reject(new Error(`no host files in this context (mkdir ${path})`)),
  setAccess: (path) => Promise.reject(new Error(`no host files in this context (chown ${path})`)),
};

/**
 * The dataplane context with the ACL registry: ACL indexes are VPP's choice, so ACLs are looked
 * up by tag at the moment of use.
 */
export interface AclContext extends DataplaneContext {
  readonly acls: AclRegistry;
}
