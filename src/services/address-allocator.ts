/**
 * Per-VM service addresses: which address of `vmAddressRange` stands for which VM port behind the
 * service bridge's NAT. Pure: the book in, a new book out, time passed in.
 *
 * - An assignment sticks as long as the port exists with the same VPC and IP, so a VM keeps its
 *   identity across agent restarts and reconciles.
 * - A port that goes away (or comes back as another VM: new VPC or IP) releases its address, which
 *   is then held back for `holdMs`: a late packet of the old VM must not reach a service as the
 *   new VM. Removing the old mapping kills its NAT sessions; the hold covers what is in flight.
 * - New ports get the lowest free host address (network and broadcast addresses are skipped).
 */
import { intToIp4, ip4InPrefix, ip4Mask, ip4ToInt, type Ip4Prefix } from '../net/ip.js';
import type { AgentConfig } from '../config/model.js';
import { VppnetError } from '../util/errors.js';

export interface AddressAssignment {
  readonly address: string;
  readonly vpc: string;
  readonly ip: string;
}

export interface AddressBook {
  /** Port name → its assignment. */
  readonly assigned: ReadonlyMap<string, AddressAssignment>;
  /** Released address → when (ms since the epoch). */
  readonly held: ReadonlyMap<string, number>;
}

export const EMPTY_BOOK: AddressBook = { assigned: new Map(), held: new Map() };

export interface AddressRequest {
  readonly port: string;
  readonly vpc: string;
  readonly ip: string;
}

/**
 * One request per VM port: for its IPv4 service address, and with services.ip6 its IPv6 one takes
 * the same host number (ip6-services.ts). A VM of an IPv6-only VPC gets one only with
 * services.ip6, and is known by its IPv6 address: a new address is a new VM, as for IPv4.
 */
export function serviceAddressRequests(config: Pick<AgentConfig, 'ports' | 'services'>): AddressRequest[] {
  const withIp6 = config.services?.ip6 !== undefined;
  return config.ports.flatMap((p) => {
    const ip = p.ip ?? (withIp6 ? p.ip6 : undefined);
    return ip === undefined ? [] : [{ port: p.name, vpc: p.vpc, ip }];
  });
}

/** What VPP still holds (tagged static mappings), used when the book does not know a port. */
export interface RecoveredAssignment {
  readonly port: string;
  readonly vpc: string | undefined;
  readonly ip: string;
  readonly address: string;
}

export interface AllocationInput {
  readonly book: AddressBook;
  readonly requests: readonly AddressRequest[];
  readonly range: Ip4Prefix;
  readonly holdMs: number;
  readonly now: number;
  readonly recovered?: readonly RecoveredAssignment[];
}

export interface AllocationResult {
  readonly book: AddressBook;
  /** Port name → service address, for every request that got one. */
  readonly addresses: ReadonlyMap<string, string>;
  /** Requests left without an address because the range is exhausted. */
  readonly exhausted: readonly ServiceAddressExhaustedError[];
  /** Whether the book differs from the one passed in (and should be saved). */
  readonly changed: boolean;
}

export class ServiceAddressExhaustedError extends VppnetError<'VPPNET_ERR_SERVICE_ADDRESSES_EXHAUSTED'> {
  readonly port: string;
  constructor(
    port: string,
    range: Ip4Prefix,
    assigned: number,
    held: number,
    nextFreeAt: number | undefined,
  ) {
    const when =
      nextFreeAt === undefined
        ? ''
        : `; the first held-back address frees at ${new Date(nextFreeAt).toISOString()}`;
    super(
      'VPPNET_ERR_SERVICE_ADDRESSES_EXHAUSTED',
      `no free service address in ${range.address}/${range.len} for port ${port}: ` +
        `${assigned} assigned, ${held} held back after release${when} (services.vmAddressRange)`,
    );
    this.name = 'ServiceAddressExhaustedError';
    this.port = port;
  }
}

/** Host addresses of a range, lowest first (the whole range for /31 and /32). */
export function hostAddresses(range: Ip4Prefix): { readonly first: number; readonly last: number } {
  const net = (ip4ToInt(range.address) & ip4Mask(range.len)) >>> 0;
  const broadcast = (net | ~ip4Mask(range.len)) >>> 0;
  return range.len >= 31 ? { first: net, last: broadcast } : { first: net + 1, last: broadcast - 1 };
}

export function allocateServiceAddresses(input: AllocationInput): AllocationResult {
  const { range, holdMs, now } = input;
  const assigned = new Map(input.book.assigned);
  const held = new Map(input.book.held);
  const requests = new Map(input.requests.map((r) => [r.port, r]));
  const { first, last } = hostAddresses(range);
  const inRange = (a: string): boolean => {
    if (!ip4InPrefix(a, range)) return false;
    const n = ip4ToInt(a);
    return n >= first && n <= last;
  };

  // 1. What VPP holds and the book lost (state file gone): adopt it for the same VM, hold it otherwise.
  const taken = new Set([...assigned.values()].map((a) => a.address));
  for (const r of input.recovered ?? []) {
    if (assigned.has(r.port) || taken.has(r.address) || !inRange(r.address)) continue;
    const req = requests.get(r.port);
    if (req && req.vpc === r.vpc && req.ip === r.ip) {
      assigned.set(r.port, { address: r.address, vpc: req.vpc, ip: req.ip });
      taken.add(r.address);
      held.delete(r.address);
    } else if (!held.has(r.address)) {
      // Its VM is gone, when exactly is unknown: hold it from now.
      held.set(r.address, now);
    }
  }

  // 2. Release addresses of ports that are gone or are another VM now, and of a range left behind.
  for (const [port, a] of assigned) {
    const req = requests.get(port);
    if (req && req.vpc === a.vpc && req.ip === a.ip && inRange(a.address)) continue;
    assigned.delete(port);
    held.set(a.address, now);
  }

  // 3. Holds run out.
  for (const [address, releasedAt] of held) if (now - releasedAt >= holdMs) held.delete(address);

  // 4. New ports, in name order so that the outcome does not depend on config order.
  const used = new Set([...assigned.values()].map((a) => a.address));
  const exhausted: ServiceAddressExhaustedError[] = [];
  let cursor = first;
  for (const port of [...requests.keys()].sort()) {
    if (assigned.has(port)) continue;
    const req = requests.get(port) as AddressRequest;
    while (cursor <= last && (used.has(intToIp4(cursor)) || held.has(intToIp4(cursor)))) cursor++;
    if (cursor > last) {
      const nextFreeAt = held.size === 0 ? undefined : Math.min(...held.values()) + holdMs;
      exhausted.push(new ServiceAddressExhaustedError(port, range, assigned.size, held.size, nextFreeAt));
      continue;
    }
    const address = intToIp4(cursor);
    assigned.set(port, { address, vpc: req.vpc, ip: req.ip });
    used.add(address);
  }

  const book: AddressBook = { assigned, held };
  const addresses = new Map([...assigned].map(([port, a]) => [port, a.address]));
  return { book, addresses, exhausted, changed: !sameBook(input.book, book) };
}

function sameBook(a: AddressBook, b: AddressBook): boolean {
  if (a.assigned.size !== b.assigned.size || a.held.size !== b.held.size) return false;
  for (const [port, x] of a.assigned) {
    const y = b.assigned.get(port);
    if (!y || y.address !== x.address || y.vpc !== x.vpc || y.ip !== x.ip) return false;
  }
  for (const [address, t] of a.held) if (b.held.get(address) !== t) return false;
  return true;
}
