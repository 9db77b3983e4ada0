/**
 * Descriptors for interfaces and their per-interface settings. vppnet's interfaces carry a tag
 * ("vppnet:…"); external ones (the underlay NIC) are configured but never created or deleted.
 */
import { canonicalEqual } from '../reconcile/descriptor.js';
import { defineKind, type Kind } from '../reconcile/kind.js';
import type { Resource } from '../reconcile/resource.js';
import { VppRetvalError } from '../vpp/client/retval-error.js';
import type { MessageDef } from '../vpp/codec/schema.js';
import { msg } from '../vpp/messages/index.js';
import { NO_INDEX } from '../vpp/messages/sentinels.js';
import type { DataplaneContext } from './context.js';
import { vppPrefix } from './ip-values.js';
import { keys } from './keys.js';
import { clearInheritedSourceChecks } from './source-check-descriptors.js';

export type InterfaceValue =
  /** VPP picks the instance: a fixed one could collide with loopbacks others created. */
  | { readonly type: 'loopback'; readonly name: string; readonly mac: string }
  | {
      readonly type: 'af_packet';
      readonly name: string;
      readonly hostIfName: string;
      readonly mac: string;
      /**
       * TX ring size in frames, VPP's default (1024) when absent. Set at creation only and not in
       * af_packet_dump, so it is not compared either.
       */
      readonly txFrames?: number;
    }
  | { readonly type: 'vhost-user'; readonly name: string; readonly socket: string; readonly mac: string }
  | {
      readonly type: 'tap';
      readonly name: string;
      readonly netns: string;
      readonly hostIfName: string;
      readonly mac: string;
      readonly hostMac: string;
      /** The pod side's MTU; the kernel's default when absent. */
      readonly hostMtu?: number;
    }
  | { readonly type: 'external'; readonly name: string };

/** af_packet flags QDISC_BYPASS|CKSUM_GSO: with 0, VPP drops the kernel's offloaded TCP/UDP (vpp-services.md). */
const AF_PACKET_FLAGS = 3;
/** Keep the host device across VPP restarts and re-attach to it when VPP comes back. */
const TAP_FLAGS = msg.tap_flags_t.values.TAP_API_FLAG_PERSIST | msg.tap_flags_t.values.TAP_API_FLAG_ATTACH;

async function createInterface(ctx: DataplaneContext, v: InterfaceValue): Promise<number> {
  const c = ctx.client;
  switch (v.type) {
    case 'loopback':
      return (await c.call(msg.create_loopback_instance, { mac_address: v.mac, is_specified: false }))
        .sw_if_index;
    case 'af_packet':
      return (
        await c.call(msg.af_packet_create_v3, {
          mode: 1,
          hw_addr: v.mac,
          use_random_hw_addr: false,
          host_if_name: v.hostIfName,
          flags: AF_PACKET_FLAGS,
          ...(v.txFrames !== undefined && { tx_frames_per_block: v.txFrames }),
          num_rx_queues: 1,
          num_tx_queues: 1,
        })
      ).sw_if_index;
    case 'vhost-user':
      await refuseToReplace(ctx, v.socket);
      try {
        return (
          await c.call(msg.create_vhost_user_if_v2, {
            is_server: true,
            sock_filename: v.socket,
            use_custom_mac: true,
            mac_address: v.mac,
            tag: v.name,
          })
        ).sw_if_index;
      } catch (err) {
        throw await explainVhostFailure(ctx, v.socket, err);
      }
    case 'tap':
      return (
        await c.call(msg.tap_create_v3, {
          id: NO_INDEX,
          use_random_mac: false,
          mac_address: v.mac,
          host_mac_addr_set: true,
          host_mac_addr: v.hostMac,
          host_namespace_set: true,
          host_namespace: v.netns,
          host_if_name_set: true,
          host_if_name: v.hostIfName,
          ...(v.hostMtu !== undefined && { host_mtu_set: true, host_mtu_size: v.hostMtu }),
          tap_flags: TAP_FLAGS,
          tag: v.name,
        })
      ).sw_if_index;
    case 'external':
      throw new Error(`interface ${v.name} is not vppnet's to create`);
  }
}

/**
 * VPP unlinks a vhost-user socket's path before it binds, whatever is there. vppnet lets it
 * replace a socket (its own from before a restart) and nothing else: not a file, a directory or
 * a symlink (checked without following it), which config validation alone cannot see.
 */
async function refuseToReplace(ctx: DataplaneContext, socket: string): Promise<void> {
  const facts = await ctx.files.stat(socket);
  if (facts !== undefined && facts.type !== 'socket')
    throw new Error(
      `vhost-user socket ${socket}: refusing to create it: the path exists and is ${facts.type === 'directory' ? 'a directory' : 'not a socket (a file or a symlink)'}, which VPP would delete`,
    );
}

/**
 * VPP answers a socket it cannot bind with SYSCALL_ERROR_2 alone. Say which socket, and what the
 * agent can see of its directory: the usual causes are a directory VPP does not see (a different
 * mount) or a path in use by something else.
 */
async function explainVhostFailure(ctx: DataplaneContext, socket: string, err: unknown): Promise<unknown> {
  if (!(err instanceof VppRetvalError) || err.errorName !== 'SYSCALL_ERROR_2') return err;
  const dir = socket.slice(0, socket.lastIndexOf('/')) || '/';
  const [dirFacts, socketFacts] = await Promise.all([ctx.files.stat(dir), ctx.files.stat(socket)]).catch(
    () => [undefined, undefined],
  );
  let cause: string;
  if (dirFacts === undefined) cause = `its directory ${dir} does not exist`;
  else if (dirFacts.type !== 'directory') cause = `${dir} is not a directory`;
  else if (socketFacts !== undefined && socketFacts.type !== 'socket')
    cause = `${socket} exists and is not a socket`;
  else
    cause = `VPP could not bind it although ${dir} exists in the agent's view: does VPP see the same ${dir} (its mounts), and may it write there?`;
  return new Error(`vhost-user socket ${socket}: ${err.message}: ${cause}`, { cause: err });
}

async function deleteInterface(ctx: DataplaneContext, v: InterfaceValue, swIfIndex: number): Promise<void> {
  const c = ctx.client;
  switch (v.type) {
    case 'loopback':
      await c.call(msg.delete_loopback, { sw_if_index: swIfIndex });
      return;
    case 'af_packet':
      await c.call(msg.af_packet_delete, { host_if_name: v.hostIfName });
      return;
    case 'vhost-user':
      await c.call(msg.delete_vhost_user_if, { sw_if_index: swIfIndex });
      return;
    case 'tap':
      await c.call(msg.tap_delete_v2, { sw_if_index: swIfIndex });
      return;
    case 'external':
      return;
  }
}

/** What a dump can tell: the creation-only settings left out. */
function comparable(v: InterfaceValue): InterfaceValue {
  if (v.type !== 'af_packet' || v.txFrames === undefined) return v;
  const { txFrames: _creationOnly, ...rest } = v;
  return rest;
}

export const interfaceDescriptor = defineKind<InterfaceValue, DataplaneContext>({
  kind: 'interface',
  messages: {
    // Loopbacks (a VPC's BVI, the SRv6 loopback) and what every new interface has cleared.
    required: [
      msg.create_loopback_instance,
      msg.delete_loopback,
      msg.sw_interface_tag_add_del,
      msg.proxy_arp_intfc_enable_disable,
      msg.urpf_update_v2,
    ],
    // Per port type; af_packet, vhost-user and tap may be plugins a node goes without.
    optional: [
      msg.af_packet_create_v3,
      msg.af_packet_delete,
      msg.create_vhost_user_if_v2,
      msg.delete_vhost_user_if,
      msg.tap_create_v3,
      msg.tap_delete_v2,
    ],
  },
  key: (v) => keys.interface(v.name),
  equivalent: (a, b) => canonicalEqual(comparable(a), comparable(b)),
  async create(ctx, { value }) {
    const swIfIndex = await createInterface(ctx, value);
    try {
      // vhost-user and tap take the tag in their create message; the others get it now.
      if (value.type === 'loopback' || value.type === 'af_packet') {
        await ctx.client.call(msg.sw_interface_tag_add_del, {
          is_add: true,
          sw_if_index: swIfIndex,
          tag: value.name,
        });
      }
      await clearInheritedSettings(ctx, swIfIndex);
    } catch (err) {
      // An untagged interface would be invisible to the next reconcile: never leave one behind.
      await deleteInterface(ctx, value, swIfIndex).catch(() => undefined);
      throw err;
    }
    ctx.interfaces.set(value.name, swIfIndex);
  },
  async delete(ctx, { value }) {
    if (!ctx.interfaces.has(value.name)) return;
    await deleteInterface(ctx, value, ctx.interfaces.index(value.name));
    ctx.interfaces.remove(value.name);
  },
});

/**
 * Clears what a new interface inherits from a deleted one with the same sw_if_index: VPP keeps
 * uRPF settings (urpf.c) and the proxy-ARP flag (arp_proxy.c enabled_by_sw_if_index) per index
 * past the interface's deletion, listed by their dumps while nothing checks or answers, and an
 * enable that finds the flag set changes nothing. An interface deleted behind vppnet's back (an
 * operator's interface a port was attached to) would otherwise pass them to vppnet's next one.
 */
async function clearInheritedSettings(ctx: DataplaneContext, swIfIndex: number): Promise<void> {
  await Promise.all([
    clearInheritedSourceChecks(ctx, swIfIndex),
    ctx.client.call(msg.proxy_arp_intfc_enable_disable, { sw_if_index: swIfIndex, enable: false }),
  ]);
}

/** The veth pair behind an af_packet VM port (tests and demos). */
export interface HostVethValue {
  readonly hostName: string;
  readonly netns: string;
  readonly ifname: string;
  readonly mac: string;
  /** Both ends' MTU; the kernel's default (1500) when absent. */
  readonly mtu?: number;
}

export const hostVethDescriptor = defineKind<HostVethValue, DataplaneContext>({
  kind: 'host-veth',
  // The host's links, not VPP's.
  messages: {},
  key: (v) => keys.hostVeth(v.hostName),
  // The host name is derived from every other field, so equal names mean equal pairs.
  equivalent: (a, b) => a.hostName === b.hostName,
  async create(ctx, { value }) {
    await ctx.host.createVeth(value);
  },
  async delete(ctx, { value }) {
    await ctx.host.deleteVeth(value.hostName);
  },
});

/**
 * A setting on one interface that VPP drops together with the interface (admin state, table,
 * address, unnumbered, proxy ARP): set on create, unset on delete only while the interfaces it
 * names still exist — deleting the interface has unset it already.
 */
function interfaceSetting<V extends { readonly iface: string }>(spec: {
  readonly kind: string;
  /** The one message that sets and unsets it. */
  readonly message: MessageDef;
  readonly key: (value: V) => string;
  /** Beyond the interface itself. */
  readonly alsoNames?: (value: V) => readonly string[];
  /** The interfaces that must still exist to unset it; the one interface by default. */
  readonly interfaces?: (value: V) => readonly string[];
  readonly set: (ctx: DataplaneContext, value: V, on: boolean) => Promise<void>;
}): Kind<V, DataplaneContext> {
  const interfacesOf = spec.interfaces ?? ((v: V): readonly string[] => [v.iface]);
  return defineKind<V, DataplaneContext>({
    kind: spec.kind,
    messages: { required: [spec.message] },
    key: spec.key,
    deps: (v) => [keys.interface(v.iface), ...(spec.alsoNames?.(v) ?? [])],
    create: (ctx, { value }) => spec.set(ctx, value, true),
    async delete(ctx, { value }) {
      if (interfacesOf(value).every((i) => ctx.interfaces.has(i))) await spec.set(ctx, value, false);
    },
  });
}

export interface AdminUpValue {
  readonly iface: string;
}

export const adminUpDescriptor = interfaceSetting<AdminUpValue>({
  kind: 'admin-up',
  message: msg.sw_interface_set_flags,
  key: (v) => keys.adminUp(v.iface),
  async set(ctx, v, on) {
    await ctx.client.call(msg.sw_interface_set_flags, {
      sw_if_index: ctx.interfaces.index(v.iface),
      flags: on ? 1 : 0,
    });
  },
});

export interface InterfaceTableValue {
  readonly iface: string;
  readonly table: number;
  /** The IPv6 binding (VPP keeps one per family); absent: the IPv4 one. */
  readonly ip6?: true;
}

export const interfaceTableDescriptor = interfaceSetting<InterfaceTableValue>({
  kind: 'iface-table',
  message: msg.sw_interface_set_table,
  key: (v) => keys.ifaceTable(v.iface, v.ip6),
  alsoNames: (v) => [keys.ipTable(v.table, v.ip6)],
  async set(ctx, v, on) {
    await ctx.client.call(msg.sw_interface_set_table, {
      sw_if_index: ctx.interfaces.index(v.iface),
      is_ipv6: v.ip6 === true,
      vrf_id: on ? v.table : 0,
    });
  },
});

export interface AddressValue {
  readonly iface: string;
  readonly prefix: string;
}

export const addressDescriptor = interfaceSetting<AddressValue>({
  kind: 'address',
  message: msg.sw_interface_add_del_address,
  key: (v) => keys.address(v.iface, v.prefix),
  async set(ctx, v, on) {
    await ctx.client.call(msg.sw_interface_add_del_address, {
      sw_if_index: ctx.interfaces.index(v.iface),
      is_add: on,
      del_all: false,
      prefix: vppPrefix(v.prefix),
    });
  },
});

export interface UnnumberedValue {
  readonly iface: string;
  /** The interface that lends its address. */
  readonly via: string;
}

export const unnumberedDescriptor = interfaceSetting<UnnumberedValue>({
  kind: 'unnumbered',
  message: msg.sw_interface_set_unnumbered,
  key: (v) => keys.unnumbered(v.iface),
  alsoNames: (v) => [keys.interface(v.via)],
  interfaces: (v) => [v.iface, v.via],
  async set(ctx, v, on) {
    await ctx.client.call(msg.sw_interface_set_unnumbered, {
      sw_if_index: ctx.interfaces.index(v.via),
      unnumbered_sw_if_index: ctx.interfaces.index(v.iface),
      is_add: on,
    });
  },
});

export interface ProxyArpInterfaceValue {
  readonly iface: string;
}

export const proxyArpInterfaceDescriptor = interfaceSetting<ProxyArpInterfaceValue>({
  kind: 'proxy-arp-intf',
  message: msg.proxy_arp_intfc_enable_disable,
  key: (v) => keys.proxyArpInterface(v.iface),
  async set(ctx, v, on) {
    await ctx.client.call(msg.proxy_arp_intfc_enable_disable, {
      sw_if_index: ctx.interfaces.index(v.iface),
      enable: on,
    });
  },
});

export interface InterfaceMtuValue {
  readonly iface: string;
  /** VPP's L3 MTU: IPv4 and IPv6 follow it (their own per-protocol values stay 0). */
  readonly mtu: number;
}

/** sw_interface_set_mtu's per-protocol array [L3, IP4, IP6, MPLS]; 0 means "use L3". */
function l3Mtu(mtu: number): number[] {
  return [mtu, 0, 0, 0];
}

export const interfaceMtuDescriptor = defineKind<InterfaceMtuValue, DataplaneContext>({
  kind: 'interface-mtu',
  // Not checked at connect (it never was): a VPP without it fails only the ports with an MTU.
  messages: { optional: [msg.sw_interface_set_mtu] },
  key: (v) => keys.interfaceMtu(v.iface),
  deps: (v) => [keys.interface(v.iface)],
  async create(ctx, { value }) {
    await ctx.client.call(msg.sw_interface_set_mtu, {
      sw_if_index: ctx.interfaces.index(value.iface),
      mtu: l3Mtu(value.mtu),
    });
  },
  async update(ctx, { value }) {
    await ctx.client.call(msg.sw_interface_set_mtu, {
      sw_if_index: ctx.interfaces.index(value.iface),
      mtu: l3Mtu(value.mtu),
    });
  },
  // Only desired MTUs are read back, so this runs only with the interface's own removal, which
  // takes the MTU along; an existing interface handed back keeps the MTU it was given (VPP cannot
  // tell what it had before).
  delete: () => Promise.resolve(),
});

export type InterfaceResource = Resource<InterfaceValue>;
