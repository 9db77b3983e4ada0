/**
 * An agent config with many remote routes, for the CLI's tests of output that is large (more
 * than a pipe's 64 KiB buffer) or long (more entries than a function call takes arguments).
 */
import { writeFile } from 'node:fs/promises';

/** Writes a config of one VPC with `routes` remote /32 routes to hv2, as JSON (which is YAML). */
export async function writeLargeConfig(file: string, routes: number): Promise<void> {
  const remoteRoutes = Array.from({ length: routes }, (_, i) => ({
    vpc: 'vpc-a',
    // 10.1.0.0 onwards: outside the VPC's own subnet, one address per route.
    prefix: `10.${1 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}/32`,
    sid: 'fc00:2::a',
  }));
  await writeFile(
    file,
    JSON.stringify({
      node: {
        name: 'hv1',
        underlay: { interface: 'memif1/0', address: '2001:db8::1/64', gateway: '2001:db8::2' },
        srv6: { locator: 'fc00:1::/48' },
      },
      vpcs: [{ name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' }],
      remoteRoutes,
    }),
  );
}
