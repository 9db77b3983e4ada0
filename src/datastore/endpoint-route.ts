/**
 * A remote route as the fleet derivation makes it (derive.ts): its endpoint's key, VPC and SID,
 * and its prefix and family read from the key when asked. The key is the view's own string
 * (endpoint-table.ts), validated when its value was accepted: `PREFIX/endpoints/VPC/ADDRESS_LEN`.
 *
 * Why not a plain RemoteRouteConfig: a 100k-endpoint node held per route the object (56 bytes),
 * its prefix object (40) and address text (~32), and the key again in a list beside the routes
 * (bench/results/2026-12-07-fleet-memory-2.md). Here it is one 48-byte object whose strings are
 * shared: the key with the view, the VPC name and the SID with every route like it. The prefix
 * is read when a consumer asks (the steering entries are built once per derived config), and is
 * garbage soon after.
 */
import type { RemoteRouteConfig } from '../config/model.js';
import { routeAsWritten } from '../config/written-route.js';
import type { EndpointPrefix } from './keys.js';

export class EndpointRoute implements RemoteRouteConfig {
  readonly vpc: string;
  /** The endpoint's key: the view's string, shared. */
  readonly key: string;
  readonly sid: string;

  constructor(vpc: string, key: string, sid: string) {
    this.vpc = vpc;
    this.key = key;
    this.sid = sid;
  }

  get prefix(): EndpointPrefix {
    return endpointKeyPrefix(this.key);
  }

  get family(): 4 | 6 {
    return endpointKeyFamily(this.key);
  }

  /** The route as the config file writes it: what a printed config shows. */
  toJSON(): RemoteRouteConfig {
    return routeAsWritten(this);
  }
}

/** The prefix spelled at the end of a valid endpoint key (`…/ADDRESS_LEN`). */
export function endpointKeyPrefix(key: string): EndpointPrefix {
  const cut = key.lastIndexOf('_');
  return { address: key.slice(key.lastIndexOf('/') + 1, cut), len: Number(key.slice(cut + 1)) };
}

/** The family of the prefix at the end of a valid endpoint key: IPv6 addresses have colons. */
export function endpointKeyFamily(key: string): 4 | 6 {
  return key.indexOf(':', key.lastIndexOf('/')) >= 0 ? 6 : 4;
}
