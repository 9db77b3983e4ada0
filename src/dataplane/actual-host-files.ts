/**
 * The host files vppnet manages (host-file-descriptors.ts) as found: what stat(2) says of the
 * desired paths, with the snapshot deciding which sockets are the running VPP's.
 */
import type { Resource } from '../reconcile/resource.js';
import type { FileFacts } from './context.js';
import {
  hostDirectoryDescriptor,
  socketAccessDescriptor,
  type SocketAccessValue,
} from './host-file-descriptors.js';
import { keys } from './keys.js';
import type { DataplaneSnapshot } from './snapshot.js';

/** The paths to stat for these desired resources. */
export function hostFilePaths(desired: readonly Resource[]): string[] {
  const paths: string[] = [];
  for (const r of desired) {
    if (hostDirectoryDescriptor.is(r)) paths.push(r.value.path);
    else if (socketAccessDescriptor.is(r)) paths.push(r.value.socket);
  }
  return paths;
}

export function actualHostFiles(
  desired: readonly Resource[],
  facts: ReadonlyMap<string, FileFacts | undefined>,
  s: DataplaneSnapshot,
): Resource[] {
  // A socket file is only the running VPP's while VPP has a port on it: after a VPP restart the
  // old file stays, with the old owner, until vppnet re-creates the port and VPP binds anew.
  const vhostPorts = new Map<string, string>();
  for (const v of s.vhostUser.values()) {
    const name = s.interfaces.nameOf(v.sw_if_index);
    if (name !== undefined) vhostPorts.set(v.sock_filename, name);
  }
  const out: Resource[] = [];
  for (const r of desired) {
    if (hostDirectoryDescriptor.is(r)) {
      // An existing directory is left as it is: present, whatever its mode.
      if (facts.get(r.value.path)?.type === 'directory') out.push(hostDirectoryDescriptor.resource(r.value));
    } else if (socketAccessDescriptor.is(r)) {
      const want = r.value;
      const found = facts.get(want.socket);
      const port = vhostPorts.get(want.socket);
      if (found === undefined || port === undefined) continue;
      const value: SocketAccessValue = {
        socket: want.socket,
        ...(want.uid !== undefined && { uid: found.uid }),
        ...(want.gid !== undefined && { gid: found.gid }),
        mode: found.type === 'socket' ? found.mode : -1,
      };
      out.push(socketAccessDescriptor.resource(value, { after: [keys.interface(port)] }));
    }
  }
  return out;
}
