/**
 * A Linux network interface name, by the kernel's own rule (net/core/dev.c dev_valid_name): 1 to
 * IFNAMSIZ - 1 bytes, not "." or "..", no "/", ":" or whitespace, and no NUL (where the kernel's
 * name would end). One rule for every place vppnet takes one: the config's VM ifname, the agent
 * API's attach request, CNI_IFNAME, the netns code.
 */

/** IFNAMSIZ is 16 with the terminating NUL. */
export const MAX_LINK_NAME_BYTES = 15;

/** Why `name` is not a valid link name, or undefined when it is. */
export function linkNameProblem(name: string): string | undefined {
  if (name === '') return 'interface name is empty';
  if (Buffer.byteLength(name) > MAX_LINK_NAME_BYTES)
    return `interface name is longer than ${MAX_LINK_NAME_BYTES} characters`;
  if (name === '.' || name === '..') return 'interface name is . or ..';
  if (/[/:\s]/.test(name)) return 'interface name contains / or : or whitespace';
  // The kernel's name ends at its NUL: `ip` (and the kernel) would make another, shorter name.
  if (name.includes('\0')) return 'interface name contains a NUL';
  return undefined;
}

export function isLinkName(name: string): boolean {
  return linkNameProblem(name) === undefined;
}
