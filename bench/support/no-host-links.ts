/**
 * HostLinks for benchmarks whose ports and underlay are existing VPP interfaces: no veth pairs on
 * the host to create, list or keep.
 */
import type { HostLinks } from '../../src/dataplane/context.js';

export const noHostLinks: HostLinks = {
  createVeth: () => Promise.reject(new Error('no veth ports in this benchmark')),
  deleteVeth: () => Promise.resolve(),
  listVeths: () => Promise.resolve([]),
  keepIsolated: () => Promise.resolve(),
};
