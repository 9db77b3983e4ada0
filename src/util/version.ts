/**
 * The release every vppnet program reports (`--version`, the agent's start line and
 * `vppnet_build_info`). A constant rather than a read of package.json because vppnet-cni ships as
 * a single executable with no package.json beside it; version.test.ts keeps the two equal.
 */
export const VPPNET_VERSION = '0.1.0';

/** The VPP release whose API files the messages were generated from and tested against. */
export const VPP_API_RELEASE = '26.06';

/** One line for `--version`: program, release and the VPP API it speaks. */
export function versionLine(program: string): string {
  return `${program} ${VPPNET_VERSION} (VPP API ${VPP_API_RELEASE})`;
}
