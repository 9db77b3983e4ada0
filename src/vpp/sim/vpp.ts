/**
 * One simulated VPP process: all its state, created fresh at every (re)start. Holds the area
 * modules and the few cross-area hooks VPP implements with callback registrations.
 */
import { AclPlugin } from './acl.js';
import { AclDataplane } from './acl-dataplane.js';
import { Arping } from './arping.js';
import { ArpTerm } from './arp-term.js';
import type { Registration } from './api-server.js';
import { Devices } from './devices.js';
import { Dhcp } from './dhcp.js';
import { BdIpMac } from './bd-ip-mac.js';
import { Classify } from './classify.js';
import type { Dispatcher } from './dispatcher.js';
import { ErrorCounters } from './error-counters.js';
import { Fib } from './fib.js';
import type { HostOps } from './host.js';
import { Interfaces, type InterfaceKind } from './interfaces.js';
import { Ip } from './ip.js';
import { IpRoutes } from './ip-routes.js';
import { Ip6Link } from './ip6-link.js';
import { IpNeighbor } from './ip-neighbor.js';
import { Ip6NdProxy } from './ip6-nd-proxy.js';
import { Ip6Ra } from './ip6-ra.js';
import { macBytes, type Af } from './ip-addr.js';
import { L2 } from './l2.js';
import { L2Fib } from './l2-fib.js';
import { MacipPlugin } from './macip.js';
import { MacipDataplane } from './macip-dataplane.js';
import { Nat } from './nat.js';
import { Nat44Ei } from './nat44-ei.js';
import { Nat66 } from './nat66.js';
import { PolicerPlugin } from './policer.js';
import { PolicerClassify } from './policer-classify.js';
import { ProxyArp } from './proxy-arp.js';
import { Sr } from './sr.js';
import { SrLocalSids } from './sr-localsids.js';
import { Urpf } from './urpf.js';
import { Vpe } from './vpe.js';

export interface VppProcessOptions {
  readonly pid: number;
  readonly version: string;
  readonly buildDate: string;
  readonly buildDirectory: string;
  readonly buildUser: string;
  readonly buildHost: string;
  readonly vhostNet: boolean;
  readonly checkHostInterfaces: boolean;
}

/** An interface present when the process starts. */
export interface InitialInterface {
  readonly name: string;
  /** Default: inferred from the name (memif<s>/<i>, host-<if>, loop<n>, tap<n>), else 'ethernet'. */
  readonly type?: 'memif' | 'af_packet' | 'loopback' | 'tap' | 'ethernet';
  /** Default: a random 02:fe:... address. */
  readonly mac?: string;
  /** Default true (a NIC with its cable in; a connected memif). */
  readonly linkUp?: boolean;
  readonly adminUp?: boolean;
  readonly mtu?: number;
  /** `interface_dev_type`; default from the type. */
  readonly devType?: string;
}

export interface ServerAccess {
  registrationAt(index: number): Registration | undefined;
  freeRegistration(index: number): boolean;
}

export interface FaultSettings {
  /** Cursor `_get` services stop after this many details with EAGAIN (0: never). */
  cursorPageLimit: number;
}

export class Vpp {
  readonly options: VppProcessOptions;
  readonly dispatcher: Dispatcher;
  readonly server: ServerAccess;
  readonly faults: FaultSettings;
  readonly registrationFor: (clientIndex: number) => Registration | undefined;
  readonly fib = new Fib();
  /** vlib error counters (`show errors`), per process: a restart starts them at zero. */
  readonly errors = new ErrorCounters();
  readonly interfaces: Interfaces;
  readonly ip6Link: Ip6Link;
  readonly ip: Ip;
  readonly ipRoutes: IpRoutes;
  readonly proxyArp: ProxyArp;
  readonly ipNeighbor: IpNeighbor;
  readonly ip6Ra: Ip6Ra;
  readonly ip6NdProxy: Ip6NdProxy;
  readonly l2: L2;
  readonly l2Fib: L2Fib;
  readonly bdIpMac: BdIpMac;
  readonly arpTerm: ArpTerm;
  readonly srLocalSids: SrLocalSids;
  readonly sr: Sr;
  readonly nat: Nat;
  readonly nat44Ei: Nat44Ei;
  readonly nat66: Nat66;
  readonly acl: AclPlugin;
  readonly aclDataplane: AclDataplane;
  readonly macip: MacipPlugin;
  readonly macipDataplane: MacipDataplane;
  readonly classify: Classify;
  readonly policer: PolicerPlugin;
  readonly policerClassify: PolicerClassify;
  readonly urpf: Urpf;
  readonly dhcp: Dhcp;
  readonly arping: Arping;
  readonly devices: Devices;
  readonly vpe: Vpe;

  constructor(a: {
    options: VppProcessOptions;
    host: HostOps;
    dispatcher: Dispatcher;
    server: ServerAccess;
    faults: FaultSettings;
    registrationFor: (clientIndex: number) => Registration | undefined;
    initialInterfaces: readonly InitialInterface[];
  }) {
    this.options = a.options;
    this.dispatcher = a.dispatcher;
    this.server = a.server;
    this.faults = a.faults;
    this.registrationFor = a.registrationFor;
    this.interfaces = new Interfaces(this);
    // Before ip: adding an IPv6 address enables the link.
    this.ip6Link = new Ip6Link(this.fib, this.interfaces);
    this.ip = new Ip(this);
    this.ipRoutes = new IpRoutes(this.fib, this.interfaces);
    this.proxyArp = new ProxyArp(this.fib, this.interfaces);
    this.ipNeighbor = new IpNeighbor(this);
    this.ip6Ra = new Ip6Ra(this);
    this.ip6NdProxy = new Ip6NdProxy(this);
    this.l2 = new L2(this);
    this.l2Fib = new L2Fib(this);
    this.bdIpMac = new BdIpMac(this);
    this.arpTerm = new ArpTerm(this);
    this.srLocalSids = new SrLocalSids(this);
    this.sr = new Sr(this);
    this.nat = new Nat(this);
    this.nat44Ei = new Nat44Ei(this);
    this.nat66 = new Nat66(this);
    this.acl = new AclPlugin(this);
    this.aclDataplane = new AclDataplane(this);
    this.macip = new MacipPlugin(this);
    this.macipDataplane = new MacipDataplane(this);
    this.classify = new Classify(this);
    this.policer = new PolicerPlugin();
    this.policerClassify = new PolicerClassify(this);
    this.urpf = new Urpf(this);
    this.dhcp = new Dhcp(this);
    this.arping = new Arping(this);
    this.devices = new Devices(this, a.host);
    this.vpe = new Vpe(this);
    for (const i of a.initialInterfaces) this.#addInitial(i);
    // Interfaces that existed before any client came produced no events anyone could see.
    this.interfaces.flushEvents();
  }

  register(d: Dispatcher): void {
    this.vpe.register(d);
    this.interfaces.register(d);
    this.ip.register(d);
    this.ip6Link.register(d);
    this.ipRoutes.register(d);
    this.proxyArp.register(d);
    this.ipNeighbor.register(d);
    this.ip6Ra.register(d);
    this.ip6NdProxy.register(d);
    this.l2.register(d);
    this.l2Fib.register(d);
    this.bdIpMac.register(d);
    this.srLocalSids.register(d);
    this.sr.register(d);
    this.nat.register(d);
    this.nat44Ei.register(d);
    this.nat66.register(d);
    this.acl.register(d);
    this.macip.register(d);
    this.classify.register(d);
    this.policer.register(d);
    this.policerClassify.register(d);
    this.urpf.register(d);
    this.dhcp.register(d);
    this.arping.register(d);
    this.devices.register(d);
  }

  /** ip4/ip6 add_del_interface_address callbacks (NAT's interface-address resolution...) */
  onAddressChange(swIfIndex: number, af: Af, addr: Buffer, _len: number, isDel: boolean): void {
    if (af === 4) this.nat44Ei.mappings.onIp4AddressChange(swIfIndex, addr, isDel);
  }

  /** table_bind_callbacks (fib_table_bind): uRPF's urpf_table_bind_v4/v6. */
  onTableBind(swIfIndex: number, af: Af, fibIndex: number, _oldFibIndex: number): void {
    this.urpf.onTableBind(swIfIndex, af, fibIndex);
  }

  #addInitial(i: InitialInterface): void {
    const type = i.type ?? inferType(i.name);
    const mac = i.mac ? macBytes(i.mac) : undefined;
    const linkUp = i.linkUp ?? true;
    let kind: InterfaceKind = 'ethernet';
    let devType = i.devType;
    if (type === 'memif') {
      const m = /^memif(\d+)\/(\d+)$/.exec(i.name);
      const socketId = m ? Number(m[1]) : 0;
      const id = m ? Number(m[2]) : 0;
      const socks = this.devices.memifSockets;
      let sock = [...socks.values()].find((s) => s.socketId === socketId);
      if (!sock) {
        socks.add(() => ({
          socketId,
          filename: `/run/vpp/memif${socketId}.sock`,
          refs: 0,
          isListener: false,
        }));
        sock = [...socks.values()].find((s) => s.socketId === socketId);
      }
      if (sock) sock.refs++;
      let swIfIndex = 0;
      this.devices.memifs.add((index) => {
        const sw = this.interfaces.create({
          kind: 'memif',
          name: () => i.name,
          devType: devType ?? 'memif',
          mac: mac ?? randomMac(),
          linkUp,
          instance: index,
          ...(i.mtu ? { linkMtu: i.mtu } : {}),
        });
        swIfIndex = sw.swIfIndex;
        return {
          swIfIndex: sw.swIfIndex,
          id,
          socketId,
          isMaster: false,
          mode: 0,
          ringSize: 1024,
          bufferSize: 2048,
          zeroCopy: true,
        };
      });
      this.#initialAdmin(swIfIndex, i);
      return;
    }
    if (type === 'af_packet') {
      const host = i.name.replace(/^host-/, '');
      const r = this.devices.createAfPacket({
        hostIfName: host,
        mode: 1,
        mac: mac ?? undefined,
        flags: 0,
        preexisting: true,
      });
      this.#initialAdmin(r.swIfIndex, i);
      return;
    }
    if (type === 'loopback') {
      const n = /^loop(\d+)$/.exec(i.name);
      const r = this.interfaces.createLoopback(mac ?? Buffer.alloc(6), n !== null, n ? Number(n[1]) : 0);
      this.#initialAdmin(r.swIfIndex, i);
      return;
    }
    if (type === 'tap') {
      kind = 'tap';
      devType ??= 'tap';
    }
    const sw = this.interfaces.create({
      kind,
      name: () => i.name,
      devType: devType ?? 'dpdk',
      mac: mac ?? randomMac(),
      linkUp,
      instance: 0,
      ...(i.mtu ? { linkMtu: i.mtu } : {}),
    });
    this.#initialAdmin(sw.swIfIndex, i);
  }

  #initialAdmin(swIfIndex: number, i: InitialInterface): void {
    const sw = this.interfaces.get(swIfIndex);
    if (sw && i.adminUp) this.interfaces.setAdmin(sw, true);
  }
}

function inferType(name: string): NonNullable<InitialInterface['type']> {
  if (/^memif\d+\/\d+$/.test(name)) return 'memif';
  if (name.startsWith('host-')) return 'af_packet';
  if (/^loop\d+$/.test(name)) return 'loopback';
  if (/^tap\d+$/.test(name)) return 'tap';
  return 'ethernet';
}

function randomMac(): Buffer {
  const m = Buffer.alloc(6);
  m[0] = 0x02;
  m[1] = 0xfe;
  for (let i = 2; i < 6; i++) m[i] = Math.floor(Math.random() * 256);
  return m;
}
