/**
 * The raw config the validation tests break one field at a time: a small valid hypervisor config
 * (base) and the problems validation reports for an edited copy of it (problems).
 */
import assert from 'node:assert/strict';
import { ConfigError, validateConfig } from '../validate.js';

export type Obj = Record<string, unknown>;

/** The raw YAML shape, loosely typed so that each case can break one field. */
export interface RawConfig {
  node: Obj & { underlay: Obj; srv6: Obj };
  vpcs: Obj[];
  ports: Obj[];
  remoteRoutes: Obj[];
  services?: Obj;
}

export function base(): RawConfig {
  return {
    node: {
      name: 'hv1',
      underlay: { interface: 'memif1/0', address: '2001:db8::1/64', gateway: '2001:db8::2' },
      srv6: { locator: 'fc00:1::/48' },
    },
    vpcs: [{ name: 'vpc-a', id: 10, subnets: ['10.0.0.0/24'], gateway: '10.0.0.1' }],
    ports: [
      {
        name: 'vm1',
        vpc: 'vpc-a',
        mac: '52:54:00:00:00:05',
        ip: '10.0.0.5',
        attach: { type: 'vhost-user', socket: '/run/vppnet/vhost/vm1.sock' },
      },
    ],
    remoteRoutes: [{ vpc: 'vpc-a', prefix: '10.0.0.7/32', sid: 'fc00:2::a' }],
  };
}

/** Applies `edit` to a fresh base config and returns the problems validation reports. */
export function problems(edit: (c: RawConfig) => void): { path: string; message: string }[] {
  const c = base();
  edit(c);
  try {
    validateConfig(c);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return [...err.problems];
  }
  return [];
}
