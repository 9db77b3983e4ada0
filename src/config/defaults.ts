/** Defaults of the service bridge, shared by validation and the configuration reference. */
export const SERVICE_DEFAULTS = {
  table: 4000,
  bridgeDomain: 100,
  gateway: '169.254.169.1/24',
  vmAddressRange: '169.252.252.0/24',
  metadataAddress: '169.254.169.254',
  addressHoldSeconds: 300,
} as const;

/**
 * Aging of VPP's IPv6 neighbour entries (docs/underlay-neighbours.md): an underlay peer whose MAC
 * changed and whose advertisement was lost is relearned after at most this, plus a second's probe.
 */
export const UNDERLAY_NEIGHBOR_DEFAULTS = { maxAgeSeconds: 30 } as const;
