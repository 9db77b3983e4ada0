/**
 * Host ends of pods' veth pairs: "vpn" + 12 hex digits (src/netns hostVethName). Only names of
 * exactly that shape are vppnet's, so an unrelated "vpn0" on the host is never touched.
 */
export const POD_VETH_PREFIX = 'vpn';

const POD_VETH_NAME = /^vpn[0-9a-f]{12}$/;

export function isPodVethName(name: string): boolean {
  return POD_VETH_NAME.test(name);
}
