/**
 * The VPP simulator: a stand-in for VPP 26.06 on its binary-API Unix socket, for tests,
 * benchmarks and demos.
 *
 * ```ts
 * const sim = await VppSimulator.start({ socketPath: '/tmp/x/api.sock', initialInterfaces: [{ name: 'memif1/0' }] });
 * // ... point a client at sim.socketPath ...
 * sim.state.routes(10);                          // what VPP's ip_route_dump would show, as data
 * await sim.restart({ reshuffleIds: true });     // VPP restarted: state gone, other ids
 * await sim.close();
 * ```
 *
 * Files, one concept each: api-server (socket, registrations, 4 KiB sends), dispatcher (id →
 * handler, silent drops), message-table, vpe (handshake, ping, show version, CLI), interfaces and
 * devices (af_packet, tap, vhost-user, memif), ip (interface addresses, table binding,
 * unnumbered) with ip-interface-routes (the routes an address adds), ip6-link (the lock-counted
 * IPv6 link), ip-routes (tables and routes through the API) and proxy-arp, ip6-ra (router
 * advertisements), ip6-nd-proxy, ip-neighbor (static neighbours), fib (tables, entries,
 * load-balances, walk order) with fib-sources, fib-path, vpp-hash and vpp-pool, sr (policies and
 * steering) with sr-localsids and sr-steering-details, l2 (bridge domains) with l2-fib
 * (provisioned MACs), bd-ip-mac (ARP termination tables) and arp-term (a model of the node), nat
 * (nat44-ed), nat44-ei with nat44-ei-mappings, nat66, acl (lists and
 * bindings) with acl-sessions and acl-dataplane (a model of its nodes), macip (MACIP ACLs) with
 * macip-dataplane (their classifier tables on a bridge port), classify (classifier tables and
 * sessions), policer (the policer plugin's policers), policer-classify (interfaces' policer
 * classifier tables and a model of ip4-, ip6- and l2-policer-classify), urpf (its configuration and a model
 * of its check), error-counters (`show errors`), dhcp, host (kernel side effects), state
 * (snapshots), simulator (lifecycle, faults).
 * Each follows the VPP source it cites; what could not be read from the source is marked GUESS.
 */
export { VppSimulator, permissiveHost, realHost } from './simulator.js';
export type { VppSimulatorOptions, InitialInterface, HostOps, TapSpec, RequestFault } from './simulator.js';
export type { SimState, InterfaceSnapshot, RouteSnapshot, TableSnapshot } from './state.js';
export type { UrpfVerdict, UrpfEntrySnapshot } from './urpf.js';
export type { AclVerdict } from './acl-dataplane.js';
export type { MacipVerdict } from './macip-dataplane.js';
export type { PolicerClassifyVerdict } from './policer-classify.js';
export type { ArpTermVerdict } from './arp-term.js';
export type { ErrorCounterSnapshot } from './error-counters.js';
export { Rv } from './retval.js';
export { VPP_SEND_CHUNK } from './api-server.js';
