/**
 * CNI spec versions: the ones vppnet-cni speaks and how to compare them. Versions are plain
 * "major.minor.patch" strings, as every runtime sends them.
 */

/** The version results are built in; everything else is converted from it when printing. */
export const CURRENT_CNI_VERSION = '1.1.0';

/** 0.1.0/0.2.0 results have another shape (ip4/ip6); no runtime still needs them for a Multus attachment. */
export const SUPPORTED_CNI_VERSIONS: readonly string[] = ['0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'];

const VERSION_PATTERN = /^(\d+)\.(\d+)\.(\d+)$/;

export function isVersionString(value: string): boolean {
  return VERSION_PATTERN.test(value);
}

/** Negative when a < b, 0 when equal, positive when a > b. Both must pass isVersionString. */
export function compareVersions(a: string, b: string): number {
  const pa = parseVersion(a);
  const pb = parseVersion(b);
  return pa[0] - pb[0] || pa[1] - pb[1] || pa[2] - pb[2];
}

function parseVersion(version: string): [number, number, number] {
  const match = VERSION_PATTERN.exec(version);
  if (!match) throw new RangeError(`not a CNI version: ${JSON.stringify(version)}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}
