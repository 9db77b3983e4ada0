/**
 * What VPP does to the host's kernel on behalf of the API, kept behind a small interface so tests
 * can run without root (and so a simulator never touches the host unless asked to):
 *
 * - af_packet: the host interface must exist in VPP's network namespace (SIOCGIFINDEX) and VPP
 *   sets it up (SIOCSIFFLAGS IFF_UP) before binding (plugins/af_packet/af_packet.c);
 * - tap v3: VPP creates a tun/tap device in the requested namespace, names it, sets its MAC,
 *   addresses, MTU, routes and brings it up, and makes it persistent when asked
 *   (plugins/tap/tap.c). Without /dev/vhost-net the kernel device is created (and left behind if
 *   persistent) before VPP fails with SYSCALL_ERROR_1.
 * - vhost-user server: VPP unlinks the socket path and listens on it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export interface TapSpec {
  /** clib_netns_open: a name under /var/run/netns, a path, or "pid:<n>"; undefined = VPP's own */
  readonly netns: string | undefined;
  readonly name: string;
  readonly mac?: string;
  readonly mtu?: number;
  readonly ip4?: string;
  readonly ip6?: string;
  readonly ip4Gw?: string;
  readonly ip6Gw?: string;
  readonly bridge?: string;
  readonly persist: boolean;
  readonly attach: boolean;
  readonly tun: boolean;
}

export interface HostOps {
  /** Does a network interface of that name exist where the simulator runs? */
  interfaceExists(name: string): boolean;
  /** Sets a host interface up (what af_packet_create does). */
  setUp(name: string): void;
  /** Whether a network namespace can be opened (clib_netns_open). */
  netnsExists(netns: string): boolean;
  /**
   * Creates the kernel side of a tap: TUNSETIFF (and TUNSETPERSIST) only; returns false if that
   * failed.
   */
  createTap(spec: TapSpec): boolean;
  /** Configures a created tap (address, MAC, MTU, routes, up); returns an error text or undefined. */
  configureTap(spec: TapSpec): string | undefined;
  /** Removes a tap VPP owned (non-persistent ones vanish when VPP closes them). */
  deleteTap(netns: string | undefined, name: string): void;
  /** vhost-user server: unlink and listen; returns a closer, or an error. */
  listenUnix(socketPath: string): { close(): void } | Error;
}

function netnsPath(netns: string): string {
  if (netns.startsWith('pid:')) return `/proc/${Number(netns.slice(4))}/ns/net`;
  if (netns.startsWith('/')) return netns;
  return path.join('/var/run/netns', netns);
}

function run(netns: string | undefined, args: string[]): void {
  if (netns === undefined) execFileSync('ip', args, { stdio: 'pipe' });
  else execFileSync('nsenter', [`--net=${netnsPath(netns)}`, 'ip', ...args], { stdio: 'pipe' });
}

/** The real thing: /sys/class/net checks and iproute2 (needs root for anything that changes). */
export const realHost: HostOps = {
  interfaceExists: (name) =>
    name.length > 0 && !name.includes('/') && existsSync(path.join('/sys/class/net', name)),
  setUp: (name) => {
    try {
      run(undefined, ['link', 'set', 'dev', name, 'up']);
    } catch {
      // VPP would fail with SYSCALL_ERROR_1 here; tests without privileges keep going
    }
  },
  netnsExists: (netns) => existsSync(netnsPath(netns)),
  createTap: (spec) => {
    try {
      const exists = (() => {
        try {
          run(spec.netns, ['link', 'show', 'dev', spec.name]);
          return true;
        } catch {
          return false;
        }
      })();
      // `ip tuntap add` makes a persistent device; a non-persistent one is removed by deleteTap
      // when the simulator lets go of it, which is when VPP would have closed its fd.
      if (!exists)
        run(spec.netns, ['tuntap', 'add', 'dev', spec.name, 'mode', spec.tun ? 'tun' : 'tap', 'vnet_hdr']);
      return true;
    } catch {
      return false;
    }
  },
  configureTap: (spec) => {
    try {
      if (spec.mac && !spec.tun) run(spec.netns, ['link', 'set', 'dev', spec.name, 'address', spec.mac]);
      if (spec.bridge) run(spec.netns, ['link', 'set', 'dev', spec.name, 'master', spec.bridge]);
      if (spec.ip4) run(spec.netns, ['addr', 'add', spec.ip4, 'dev', spec.name]);
      if (spec.ip6) run(spec.netns, ['-6', 'addr', 'add', spec.ip6, 'dev', spec.name]);
      run(spec.netns, ['link', 'set', 'dev', spec.name, 'up']);
      if (spec.ip4Gw) run(spec.netns, ['route', 'add', 'default', 'via', spec.ip4Gw]);
      if (spec.ip6Gw) run(spec.netns, ['-6', 'route', 'add', 'default', 'via', spec.ip6Gw]);
      if (spec.mtu) run(spec.netns, ['link', 'set', 'dev', spec.name, 'mtu', String(spec.mtu)]);
      return undefined;
    } catch (err) {
      return (err as Error).message;
    }
  },
  deleteTap: (netns, name) => {
    try {
      run(netns, ['link', 'del', 'dev', name]);
    } catch {
      // already gone (its namespace deleted, say)
    }
  },
  listenUnix: (socketPath) => {
    try {
      // bind () fails without the directory
      if (!existsSync(path.dirname(socketPath))) return new Error(`ENOENT: ${path.dirname(socketPath)}`);
      if (existsSync(socketPath)) unlinkSync(socketPath);
      const server = net.createServer((s) => s.destroy());
      server.on('error', () => undefined);
      server.listen(socketPath);
      return {
        close: () => {
          server.close();
          try {
            unlinkSync(socketPath);
          } catch {
            // gone
          }
        },
      };
    } catch (err) {
      return err as Error;
    }
  },
};

/** A host where every named interface exists and nothing is touched (no root needed). */
export const permissiveHost: HostOps = {
  interfaceExists: () => true,
  setUp: () => undefined,
  netnsExists: () => true,
  createTap: () => true,
  configureTap: () => undefined,
  deleteTap: () => undefined,
  listenUnix: () => ({ close: () => undefined }),
};
