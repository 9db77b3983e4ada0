/**
 * The SRv6 overlay's part of the VPP snapshot (hypervisor/snapshot.ts composes the domains'
 * parts): local SIDs, policies, the encap globals and the steering entries.
 */
import type { DataplaneSnapshot } from '../dataplane/snapshot.js';
import { INITIAL_SR_ENCAPS, readSrEncaps, type SrEncapsReading } from './sr-encaps.js';
import { SteeringEntries } from './steering-entries.js';
import type { KindMessages } from '../reconcile/descriptor.js';
import type { Message } from '../vpp/codec/schema.js';
import type { VppApi } from '../vpp/client/vpp-api.js';
import { msg } from '../vpp/messages/index.js';

const STEER_IPV4 = msg.sr_steer_t.values.SR_STEER_API_IPV4;
const STEER_IPV6 = msg.sr_steer_t.values.SR_STEER_API_IPV6;
const ADDRESS_IP6 = msg.address_family_t.values.ADDRESS_IP6;

/**
 * What vppnet reads of sr_steering_pol_details (the snapshot and fleet mode's drift check,
 * hypervisor/steering-audit.ts): a node may steer 100k prefixes, so no text is made that a
 * column does not need. The IPv4 address comes as its 32-bit value, the IPv6 one as its 16 bytes
 * and only for an IPv6 prefix (af 1), and the BSID, the same for a policy's run of entries, is
 * formatted once a run (selection.ts, field-selection.ts' LeafForm and ArmCondition). Read with
 * `reuse`: one object for every entry, so its readers copy what they keep.
 */
export const STEERING_DETAILS_FIELDS = {
  traffic_type: true,
  fib_table: true,
  bsid: 'repeat',
  prefix: {
    len: true,
    address: {
      af: true,
      un: { ip4: 'u32', ip6: { when: 'af', is: ADDRESS_IP6, select: 'bytes' } },
    },
  },
} as const;

/** An IPv6 steering entry's prefix address as STEERING_DETAILS_FIELDS reads it. */
export interface SteeredIp6Address {
  readonly af: number;
  readonly un: { readonly ip4: number; readonly ip6?: Uint8Array | undefined };
}

/**
 * Adds an IPv6 steering entry of the dump to `entries` (an IPv6 set). VPP encodes its prefix's
 * address with ip_address_encode (IP46_TYPE_ANY), which calls an address whose first 96 bits are
 * zero IPv4: ::/1 comes back as af IPv4, 0.0.0.0/1. Such an entry is still IPv6 (its traffic type
 * says so): its address is the IPv4 value in the last 32 bits.
 */
export function addSteeredIp6(
  entries: SteeringEntries,
  table: number,
  address: SteeredIp6Address,
  len: number,
  bsid: string,
): void {
  if (address.af === ADDRESS_IP6 && address.un.ip6 !== undefined)
    entries.addBytes(table, address.un.ip6, len, bsid);
  else entries.addNumber(table, address.un.ip4, len, bsid);
}

/** The address addSteeredIp6 reads, as a 128-bit number (the drift check's, keyed as the model). */
export function steeredIp6Value(address: SteeredIp6Address): bigint {
  const bytes = address.un.ip6;
  if (address.af !== ADDRESS_IP6 || bytes === undefined) return BigInt(address.un.ip4 >>> 0);
  const view = new DataView(bytes.buffer, bytes.byteOffset, 16);
  return (view.getBigUint64(0) << 64n) | view.getBigUint64(8);
}

export interface Srv6Snapshot {
  readonly localSids: readonly Message<typeof msg.sr_localsids_details>[];
  readonly policies: readonly Message<typeof msg.sr_policies_v2_details>[];
  /** The SRv6 encap globals, from VPP's CLI (no message reads them back). */
  readonly srEncaps: SrEncapsReading;
  /**
   * IPv4 steering entries. Compact: a node may steer 100k prefixes, so details are reduced as they
   * arrive.
   */
  readonly steering: SteeringEntries;
  /** IPv6 steering entries (traffic type 6), as compact; other traffic types are not kept. */
  readonly steering6: SteeringEntries;
}

/** What the overlay's read-back sees: its part, the dataplane's, and which VPP process it is. */
export interface Srv6View extends DataplaneSnapshot, Srv6Snapshot {
  readonly vppPid: number;
}

export interface Srv6Scope {
  /**
   * Whether SR policies and steering entries are read (default true). Fleet mode's drift check
   * leaves them out: it compares them with its steering model as they stream in
   * (hypervisor/steering-audit.ts) rather than holding 100k of them in a snapshot.
   */
  readonly steering?: boolean;
  /**
   * Resolves once the requests that wait for the dataplane's first answers are written
   * (DataplaneScope.onFirstAnswers): the steering dump (100k entries on a busy node) goes last,
   * so VPP answers those while the client decodes, and the long stream the client decodes at its
   * own pace comes after them instead of keeping them waiting behind it.
   */
  readonly afterFirstAnswers: Promise<unknown>;
  /**
   * Called with the SR policies dump (empty when not read) as soon as it is in, before the rest:
   * work that needs only the policies (the overlay's desired state) can run while VPP answers the
   * other dumps. Must not throw.
   */
  readonly onPolicies?: (policies: Srv6Snapshot['policies']) => void;
}

/** The messages readSrv6 sends (domain.ts); the required ones are checked at connect. */
export const SRV6_READS: KindMessages = {
  required: [msg.sr_localsids_dump, msg.sr_policies_v2_dump, msg.sr_steering_pol_dump],
  // The encap globals (sr-encaps.ts): no message reads them back.
  optional: [msg.cli_inband],
};

export async function readSrv6(client: VppApi, scope: Srv6Scope): Promise<Srv6Snapshot> {
  const steering = new SteeringEntries();
  const steering6 = new SteeringEntries(64, 6);
  const withSteering = scope.steering ?? true;
  const [localSids, policies, srEncaps] = await Promise.all([
    client.dump(msg.sr_localsids_dump, {}),
    (withSteering ? client.dump(msg.sr_policies_v2_dump, {}) : Promise.resolve([])).then((policies) => {
      scope.onPolicies?.(policies);
      return policies;
    }),
    readSrEncaps(client),
    withSteering
      ? scope.afterFirstAnswers.then(() =>
          client.dumpEach(
            msg.sr_steering_pol_dump,
            {},
            (d) => {
              const { address, len } = d.prefix;
              if (d.traffic_type === STEER_IPV4) steering.addNumber(d.fib_table, address.un.ip4, len, d.bsid);
              else if (d.traffic_type === STEER_IPV6)
                addSteeredIp6(steering6, d.fib_table, address, len, d.bsid);
            },
            { fields: STEERING_DETAILS_FIELDS, reuse: true },
          ),
        )
      : Promise.resolve(0),
  ]);
  return { localSids, policies, srEncaps, steering, steering6 };
}

/** The SRv6 part of a VPP with nothing in it: the base for partial snapshots and tests. */
export function emptySrv6Snapshot(): Srv6Snapshot {
  return {
    localSids: [],
    policies: [],
    srEncaps: INITIAL_SR_ENCAPS,
    steering: new SteeringEntries(),
    steering6: new SteeringEntries(1, 6),
  };
}
