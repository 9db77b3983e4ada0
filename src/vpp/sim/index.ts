/**
 * The VPP simulator: a stand-in for VPP 26.06 on its API socket, for tests, benchmarks and demos.
 */
export { VppSimulator, permissiveHost, realHost } from './simulator.js';
export type { VppSimulatorOptions, InitialInterface, HostOps, TapSpec } from './simulator.js';
export type { SimState, InterfaceSnapshot, RouteSnapshot, TableSnapshot } from './state.js';
export { Rv } from './retval.js';
export { VPP_SEND_CHUNK } from './api-server.js';
