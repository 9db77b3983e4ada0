/**
 * Host files next to VPP's interfaces: the directory a vhost-user socket lives in (VPP's bind()
 * fails with SYSCALL_ERROR_2 when it is missing, naming nothing) and who may open the socket VPP
 * creates (root with VPP's umask, which a QEMU that does not run as root cannot connect to).
 */
import { defineKind } from '../reconcile/kind.js';
import { keys } from './keys.js';
import type { DataplaneContext } from './context.js';

export interface HostDirectoryValue {
  readonly path: string;
  /** For a directory vppnet creates; an existing one is left as it is. */
  readonly mode: number;
  readonly gid?: number;
}

/**
 * Directories are only ever created: VPP or another port may still use one vppnet no longer
 * needs, and an empty directory costs nothing. The actual side lists a desired directory as
 * present whenever it exists, whatever its mode.
 */
export const hostDirectoryDescriptor = defineKind<HostDirectoryValue, DataplaneContext>({
  kind: 'host-directory',
  // The host's files, not VPP's.
  messages: {},
  key: (v) => keys.hostDirectory(v.path),
  equivalent: (a, b) => a.path === b.path,
  async create(ctx, { value }) {
    await ctx.files.makeDirectory(value.path, value.mode, value.gid);
  },
  delete: () => Promise.resolve(),
});

export interface SocketAccessValue {
  readonly socket: string;
  /** Absent: left as VPP made it. */
  readonly uid?: number;
  readonly gid?: number;
  readonly mode: number;
}

export const socketAccessDescriptor = defineKind<SocketAccessValue, DataplaneContext>({
  kind: 'socket-access',
  messages: {},
  key: (v) => keys.socketAccess(v.socket),
  async create(ctx, { value }) {
    await setSocketAccess(ctx, value);
  },
  async update(ctx, { value }) {
    await setSocketAccess(ctx, value);
  },
  // The socket goes with its interface.
  delete: () => Promise.resolve(),
});

async function setSocketAccess(ctx: DataplaneContext, v: SocketAccessValue): Promise<void> {
  const facts = await ctx.files.stat(v.socket);
  if (facts === undefined)
    throw new Error(
      `vhost-user socket ${v.socket} does not exist in the agent's view of the host; does the agent mount the directory VPP created it in?`,
    );
  if (facts.type !== 'socket') throw new Error(`${v.socket} is not a socket`);
  await ctx.files.setAccess(v.socket, { uid: v.uid, gid: v.gid, mode: v.mode });
}
