import type { HostLinks } from '../../src/dataplane/context.js';

/** For reconciles that must make no veth pair: any call that would is a failure of the test. */
export const NO_HOST_LINKS: HostLinks = {
  createVeth: () => Promise.reject(new Error('unexpected createVeth')),
  deleteVeth: () => Promise.reject(new Error('unexpected deleteVeth')),
  listVeths: () => Promise.resolve([]),
  keepIsolated: () => Promise.reject(new Error('unexpected keepIsolated')),
};
