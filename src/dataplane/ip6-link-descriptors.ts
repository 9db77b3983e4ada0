/**
 * Descriptors for a VM port's IPv6 link (docs/dual-stack.md, "VM ports"): IPv6 enabled on the
 * port, its link-local address, the router advertisements that let a VM configure itself by
 * SLAAC, and the mirror ND proxy that answers neighbour solicitations for the rest of the subnet.
 * Everything but the enable lives on VPP's IPv6 link: disabling IPv6 drops it (trap 5), so each
 * depends on the enable and the planner re-creates them whenever the enable is re-created.
 */
import { defineKind } from '../reconcile/kind.js';
import { VppRetvalError } from '../vpp/client/retval-error.js';
import { msg } from '../vpp/messages/index.js';
import type { DataplaneContext } from './context.js';
import { vppPrefix } from './ip-values.js';
import { keys } from './keys.js';

/** VNET_API_ERROR_IP6_NOT_ENABLED: what the IPv6 link calls answer on a port without IPv6. */
export const IP6_NOT_ENABLED = -62;

function isIp6NotEnabled(err: unknown): boolean {
  return err instanceof VppRetvalError && err.retval === IP6_NOT_ENABLED;
}

/**
 * Whether IPv6 is enabled on an interface, and its link-local address: VPP answers
 * sw_interface_ip6_get_link_local_address with -62 exactly when it is not (there is no other
 * read of the enable).
 */
export async function readIp6Link(
  ctx: Pick<DataplaneContext, 'client'>,
  swIfIndex: number,
): Promise<string | undefined> {
  try {
    return (await ctx.client.call(msg.sw_interface_ip6_get_link_local_address, { sw_if_index: swIfIndex }))
      .ip;
  } catch (err) {
    if (isIp6NotEnabled(err)) return undefined;
    throw err;
  }
}

export interface Ip6EnableValue {
  readonly iface: string;
}

/**
 * sw_interface_ip6_enable_disable is lock-counted, not idempotent (trap 3): each enable takes a
 * lock, even one answered -81 because IPv6 is on already, and IPv6 goes off only when every lock
 * is dropped. So create enables only when VPP says IPv6 is off, and delete disables once. The
 * port's MTU must be set first (trap 2): the builder orders the enable after it.
 */
export const ip6EnableDescriptor = defineKind<Ip6EnableValue, DataplaneContext>({
  kind: 'ip6-enable',
  // A VM port's IPv6: not checked at connect (it never was); a VPP without it fails those ports only.
  messages: {
    optional: [msg.sw_interface_ip6_get_link_local_address, msg.sw_interface_ip6_enable_disable],
  },
  key: (v) => keys.ip6Enable(v.iface),
  deps: (v) => [keys.interface(v.iface)],
  async create(ctx, { value }) {
    const swIfIndex = ctx.interfaces.index(value.iface);
    if ((await readIp6Link(ctx, swIfIndex)) !== undefined) return;
    await ctx.client.call(msg.sw_interface_ip6_enable_disable, { sw_if_index: swIfIndex, enable: true });
  },
  async delete(ctx, { value }) {
    // Deleting the interface has taken IPv6 along.
    if (ctx.interfaces.has(value.iface)) await disableIp6(ctx, value.iface);
  },
});

/** IPv6 off on a port (one unlock: the create took one lock); already off is no error. */
async function disableIp6(ctx: DataplaneContext, iface: string): Promise<void> {
  await ctx.client
    .call(msg.sw_interface_ip6_enable_disable, { sw_if_index: ctx.interfaces.index(iface), enable: false })
    .catch((err: unknown) => {
      if (!isIp6NotEnabled(err)) throw err;
    });
}

export interface Ip6LinkLocalValue {
  readonly iface: string;
  readonly address: string;
}

async function setLinkLocal(ctx: DataplaneContext, v: Ip6LinkLocalValue): Promise<void> {
  await ctx.client.call(msg.sw_interface_ip6_set_link_local_address, {
    sw_if_index: ctx.interfaces.index(v.iface),
    ip: v.address,
  });
}

/**
 * A fixed link-local address (the VPC's gatewayLinkLocal), so that VMs route via the same address
 * whatever the port's MAC, and statically configured guests can name it.
 */
export const ip6LinkLocalDescriptor = defineKind<Ip6LinkLocalValue, DataplaneContext>({
  kind: 'ip6-link-local',
  messages: { optional: [msg.sw_interface_ip6_set_link_local_address] },
  key: (v) => keys.ip6LinkLocal(v.iface),
  deps: (v) => [keys.interface(v.iface), keys.ip6Enable(v.iface)],
  create: (ctx, { value }) => setLinkLocal(ctx, value),
  update: (ctx, desired) => setLinkLocal(ctx, desired.value),
  // VPP has no "unset": the address goes with IPv6 on the port (its enable is deleted after this),
  // and it is read back only where vppnet wants one.
  delete: () => Promise.resolve(),
});

export interface Ip6RaPrefixValue {
  readonly iface: string;
  /** The VPC's IPv6 subnet, a /64. */
  readonly prefix: string;
  /**
   * Seconds, 0xffffffff: infinite. Always explicit (trap 4: use_default on an existing prefix
   * advertises 0).
   */
  readonly validLifetime: number;
  readonly preferredLifetime: number;
  /** The on-link flag: off, so VMs send everything to the gateway (VMs of the subnet elsewhere are routed). */
  readonly onLink: boolean;
  /** The autonomous flag: on, VMs take their address by SLAAC. */
  readonly autonomous: boolean;
}

async function setRaPrefix(ctx: DataplaneContext, v: Ip6RaPrefixValue, isNo: boolean): Promise<void> {
  await ctx.client.call(msg.sw_interface_ip6nd_ra_prefix, {
    sw_if_index: ctx.interfaces.index(v.iface),
    prefix: vppPrefix(v.prefix),
    use_default: false,
    no_advertise: false,
    off_link: false,
    no_autoconfig: !v.autonomous,
    no_onlink: !v.onLink,
    is_no: isNo,
    val_lifetime: v.validLifetime,
    pref_lifetime: v.preferredLifetime,
  });
}

export const ip6RaPrefixDescriptor = defineKind<Ip6RaPrefixValue, DataplaneContext>({
  kind: 'ip6-ra-prefix',
  messages: { optional: [msg.sw_interface_ip6nd_ra_prefix] },
  key: (v) => keys.ip6RaPrefix(v.iface, v.prefix),
  deps: (v) => [keys.interface(v.iface), keys.ip6Enable(v.iface)],
  create: (ctx, { value }) => setRaPrefix(ctx, value, false),
  // The same prefix again with explicit values replaces them in place (retval 0).
  update: (ctx, desired) => setRaPrefix(ctx, desired.value, false),
  async delete(ctx, { value }) {
    if (ctx.interfaces.has(value.iface)) await setRaPrefix(ctx, value, true);
  },
});

export interface Ip6RaConfigValue {
  readonly iface: string;
  /** Seconds between unsolicited RAs. VPP refuses min > 0.75 · max, and a lifetime ≤ max. */
  readonly maxInterval: number;
  readonly minInterval: number;
  /** The router lifetime advertised: VMs use the port as their default router. */
  readonly routerLifetime: number;
}

/**
 * Router advertisements on: without any ra_config call VPP never sends one and does not answer
 * router solicitations. default_router must be set for VPP to apply the lifetime at all.
 */
export const ip6RaConfigDescriptor = defineKind<Ip6RaConfigValue, DataplaneContext>({
  kind: 'ip6-ra-config',
  messages: { optional: [msg.sw_interface_ip6nd_ra_config] },
  key: (v) => keys.ip6RaConfig(v.iface),
  deps: (v) => [keys.interface(v.iface), keys.ip6Enable(v.iface)],
  create: (ctx, { value }) => setRaConfig(ctx, value),
  update: (ctx, desired) => setRaConfig(ctx, desired.value),
  async delete(ctx, { value }) {
    if (ctx.interfaces.has(value.iface)) await callRaConfig(ctx, value.iface, undefined);
  },
});

function setRaConfig(ctx: DataplaneContext, v: Ip6RaConfigValue): Promise<void> {
  return callRaConfig(ctx, v.iface, v);
}

/**
 * RAs on with `v`'s timers, or (undefined) suppressed: send_radv off and the rest zero, VPP has
 * no other "off".
 */
async function callRaConfig(
  ctx: DataplaneContext,
  iface: string,
  v: Ip6RaConfigValue | undefined,
): Promise<void> {
  await ctx.client.call(msg.sw_interface_ip6nd_ra_config, {
    sw_if_index: ctx.interfaces.index(iface),
    suppress: v === undefined ? 1 : 0,
    managed: 0,
    other: 0,
    ll_option: 0,
    send_unicast: 0,
    cease: 0,
    is_no: false,
    default_router: v === undefined ? 0 : 1,
    max_interval: v?.maxInterval ?? 0,
    min_interval: v?.minInterval ?? 0,
    lifetime: v?.routerLifetime ?? 0,
    initial_count: 0,
    initial_interval: 0,
  });
}

export interface Ip6NdMirrorProxyValue {
  readonly iface: string;
}

async function setMirrorProxy(ctx: DataplaneContext, iface: string, on: boolean): Promise<void> {
  await ctx.client.call(msg.ip6nd_proxy_enable_disable, {
    sw_if_index: ctx.interfaces.index(iface),
    is_enable: on,
  });
}

/**
 * The mirror ND proxy (ip6nd_proxy_enable_disable): the port answers neighbour solicitations for
 * any address it has a route to in its table, so a VM reaches same-subnet VMs on other nodes.
 *
 * VPP 26.06 has no read of it (ip6nd_proxy_dump lists per-address entries only; the switch is a
 * feature on the ip6-unicast/ip6-multicast arcs), so it cannot be read back. It is *inferred*:
 * actual.ts reports it on wherever IPv6 is enabled on a port that wants it. That holds because
 * vppnet never enables IPv6 on a port without switching the proxy on in the same plan (it depends
 * on the enable, so a re-enable re-creates it), and a failed switch-on undoes the enable, so the
 * next pass finds IPv6 off and does both again. Re-asserting it on every pass instead would make
 * every pass plan an operation per port. What is not seen: someone switching it off by hand.
 */
export const ip6NdMirrorProxyDescriptor = defineKind<Ip6NdMirrorProxyValue, DataplaneContext>({
  kind: 'ip6-nd-mirror-proxy',
  // A failed switch-on disables IPv6 again.
  messages: { optional: [msg.ip6nd_proxy_enable_disable, msg.sw_interface_ip6_enable_disable] },
  key: (v) => keys.ip6NdMirrorProxy(v.iface),
  deps: (v) => [keys.interface(v.iface), keys.ip6Enable(v.iface)],
  async create(ctx, { value }) {
    try {
      await setMirrorProxy(ctx, value.iface, true);
    } catch (err) {
      // Keep the inference true: IPv6 off again, so the next pass redoes the enable and this.
      await disableIp6(ctx, value.iface).catch(() => undefined);
      throw err;
    }
  },
  async delete(ctx, { value }) {
    if (ctx.interfaces.has(value.iface)) await setMirrorProxy(ctx, value.iface, false);
  },
});
