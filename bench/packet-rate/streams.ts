/**
 * Packet-generator streams as VPP 26.06's CLI parses them (src/vnet/pg/cli.c new_stream,
 * src/vnet/ethernet/pg.c, src/vnet/ip/ip4_pg.c, ip6_pg.c, src/vnet/udp/udp_pg.c,
 * src/vnet/pg/edit.c unformat_pg_payload):
 *
 *   packet-generator new {
 *     name S  limit 0  size N-N  [maxframe M]  [worker W]  node ethernet-input  source pgK
 *     data { IP4: <src mac> -> <dst mac>
 *            UDP: <src ip> -> <dst ip>
 *            UDP: <sport>[ - <sport2>] -> <dport> length L checksum 0
 *            incrementing P }
 *   }
 *
 * - `limit 0` and no `rate`: as many packets as the thread can make, until disabled.
 * - `size N-N` fixes the length, so ip4_pg/ip6_pg fix the IP length fields and the IPv4 checksum
 *   once; with the UDP length and checksum given too, no per-packet edit function runs (a varying
 *   source port is an increment edit, cheap). The payload edit is sized to fill the packet.
 * - `source pgK` takes the existing interface pgK as the receiving interface.
 * - `worker W` runs the stream on worker W (pg_stream_enable_disable); with no workers it is
 *   ignored (cli.c resets worker_index ≥ vlib_num_workers() to 0).
 * - `maxframe M` caps the packets a stream makes per dispatch of pg-input (pg_input_stream): with
 *   rate 0 every enabled stream makes min(M, 256) per dispatch, which is how the IMIX streams get
 *   their 7:4:1 weights.
 * - SRv6-encapsulated IPv4 (IPv6 next header 4): ip6_pg has no edit for protocol 4, so the inner
 *   IPv4/UDP packet is given as `hex 0x…` (unformat_pg_payload), built here with its checksum.
 * - IPv6/UDP from a VM (`IP6:` then `UDP: <src6> -> <dst6>`, unformat_pg_ip6_header): the UDP
 *   checksum is given as 0 like the IPv4 streams', so pg-input runs no per-packet checksum over the
 *   payload. IPv6 forbids a zero UDP checksum (RFC 8200 8.1) and a receiving host would drop such
 *   a packet, but no node on a forwarding path reads it.
 * - SRv6-encapsulated IPv6 (next header 41, `IPV6:` in ip/protocols.def): the inner IPv6/UDP
 *   packet is `hex 0x…` too, one flow, with a valid UDP checksum.
 * - IPv6 frames are at least 78 B (MIN_IP6_FRAME, CSIT's smallest IPv6 frame): Ethernet, IPv6 and
 *   UDP headers alone are 62 B + FCS, so a "64B" class measures 78 B frames on the IPv6 paths.
 *
 * Frame sizes are Ethernet frames on the wire including the 4-byte FCS (as NIC benchmarks and CSIT
 * count them); VPP's buffers hold the frame without FCS, so a 64 B frame is a 60-byte pg packet.
 */

import { ip6ToBigInt } from '../../src/net/ip.js';

export const FCS_BYTES = 4;
/** Ethernet + IPv6 header that SRv6 H.Encaps (one SID, no SRH) adds in front of the IPv4 packet. */
export const SRV6_ENCAP_BYTES = 40;
/** The smallest IPv6/UDP frame the IPv6 paths send (incl. FCS): 14 + 40 + 8 header bytes, 12 of payload. */
export const MIN_IP6_FRAME = 78;
/** VLIB_FRAME_SIZE: a pg stream makes at most this many packets per dispatch. */
export const VLIB_FRAME_SIZE = 256;

export interface FramePart {
  /** Ethernet frame incl. FCS, on the VM side of the path. */
  readonly frame: number;
  readonly weight: number;
}

export interface SizeClass {
  readonly label: string;
  readonly parts: readonly FramePart[];
}

export const SIZE_64: SizeClass = { label: '64B', parts: [{ frame: 64, weight: 1 }] };
/** Simple IMIX: 7 × 64 B, 4 × 570 B, 1 × 1518 B. */
export const IMIX: SizeClass = {
  label: 'IMIX',
  parts: [
    { frame: 64, weight: 7 },
    { frame: 570, weight: 4 },
    { frame: 1518, weight: 1 },
  ],
};
export const SIZE_CLASSES: readonly SizeClass[] = [SIZE_64, IMIX];

/** Mean frame size of a class, weighted (IMIX: 353.83 B). */
export function meanFrameBytes(size: SizeClass): number {
  const w = size.parts.reduce((s, p) => s + p.weight, 0);
  return size.parts.reduce((s, p) => s + p.frame * p.weight, 0) / w;
}

/**
 * Per-stream `maxframe` so that streams running flat out make packets in the ratio of their
 * weights: the heaviest gets the largest multiple of its weight that fits a frame (IMIX: 252,
 * 144, 36). A single part keeps the full frame.
 */
export function maxframes(parts: readonly FramePart[]): number[] {
  if (parts.length === 1) return [VLIB_FRAME_SIZE];
  const heaviest = Math.max(...parts.map((p) => p.weight));
  const unit = Math.floor(VLIB_FRAME_SIZE / heaviest);
  if (unit < 1) throw new Error(`weight ${heaviest} does not fit a frame of ${VLIB_FRAME_SIZE}`);
  return parts.map((p) => p.weight * unit);
}

/** IPv4/UDP traffic as a VM (or a plain IPv4 neighbour) sends it. */
export interface Ip4Traffic {
  readonly kind: 'ip4';
  readonly srcMac: string;
  readonly dstMac: string;
  readonly src: string;
  readonly dst: string;
  readonly dport: number;
  /** UDP source ports 1024… (one flow each); NAT44-ED keeps one session per flow. */
  readonly flows: number;
}

/** IPv4/UDP inside IPv6 to a SID, as a remote hypervisor's H.Encaps sends it (one SID, no SRH). */
export interface Srv6Traffic {
  readonly kind: 'srv6';
  readonly srcMac: string;
  readonly dstMac: string;
  readonly outerSrc: string;
  readonly sid: string;
  readonly src: string;
  readonly dst: string;
  readonly dport: number;
}

/** IPv6/UDP traffic as a VM sends it. */
export interface Ip6Traffic {
  readonly kind: 'ip6';
  readonly srcMac: string;
  readonly dstMac: string;
  readonly src: string;
  readonly dst: string;
  readonly dport: number;
  /** UDP source ports 1024… (one flow each). */
  readonly flows: number;
}

/** IPv6/UDP inside IPv6 to a DT6 SID, as a remote hypervisor's H.Encaps sends it (one SID, no SRH). */
export interface Srv6Ip6Traffic {
  readonly kind: 'srv6-ip6';
  readonly srcMac: string;
  readonly dstMac: string;
  readonly outerSrc: string;
  readonly sid: string;
  readonly src: string;
  readonly dst: string;
  readonly dport: number;
}

export type Traffic = Ip4Traffic | Srv6Traffic | Ip6Traffic | Srv6Ip6Traffic;

/** Whether the packets the VM side sees are IPv6. */
export function carriesIp6(traffic: Traffic): boolean {
  return traffic.kind === 'ip6' || traffic.kind === 'srv6-ip6';
}

/** The VM-side frame a size class's part stands for on this traffic: IPv6 never below MIN_IP6_FRAME. */
export function frameFor(traffic: Traffic, frame: number): number {
  return carriesIp6(traffic) ? Math.max(frame, MIN_IP6_FRAME) : frame;
}

/** The label of a size class on this traffic: "64B" reads "78B" on the IPv6 paths; IMIX stays IMIX. */
export function sizeLabelFor(traffic: Traffic, size: SizeClass): string {
  const [only] = size.parts;
  if (size.parts.length !== 1 || only === undefined) return size.label;
  const frame = frameFor(traffic, only.frame);
  return frame === only.frame ? size.label : `${frame}B`;
}

export const FIRST_SPORT = 1024;

/** Bytes of the pg packet (no FCS) for a VM-side frame size. */
export function pgPacketBytes(traffic: Traffic, frame: number): number {
  const vmSide = frameFor(traffic, frame) - FCS_BYTES;
  return traffic.kind === 'srv6' || traffic.kind === 'srv6-ip6' ? vmSide + SRV6_ENCAP_BYTES : vmSide;
}

function checkSize(frame: number): void {
  if (!Number.isInteger(frame) || frame < 64 || frame > 9000)
    throw new Error(`frame size ${frame} must be an integer from 64 to 9000`);
}

/** The `data { … }` lines for one frame size. */
export function pgData(traffic: Traffic, frame: number): string[] {
  checkSize(frame);
  const ipTotal = frameFor(traffic, frame) - FCS_BYTES - 14;
  const sports = (flows: number): string =>
    flows > 1 ? `${FIRST_SPORT} - ${FIRST_SPORT + flows - 1}` : String(FIRST_SPORT);
  if (traffic.kind === 'ip6') {
    return [
      `IP6: ${traffic.srcMac} -> ${traffic.dstMac}`,
      `UDP: ${traffic.src} -> ${traffic.dst}`,
      `UDP: ${sports(traffic.flows)} -> ${traffic.dport} length ${ipTotal - 40} checksum 0`,
      `incrementing ${ipTotal - 48}`,
    ];
  }
  if (traffic.kind === 'srv6-ip6') {
    const inner = ip6UdpPacket({
      src: traffic.src,
      dst: traffic.dst,
      sport: FIRST_SPORT,
      dport: traffic.dport,
      totalLength: ipTotal,
    });
    return [
      `IP6: ${traffic.srcMac} -> ${traffic.dstMac}`,
      `IPV6: ${traffic.outerSrc} -> ${traffic.sid}`,
      `hex 0x${inner.toString('hex')}`,
    ];
  }
  if (traffic.kind === 'ip4') {
    const sport = sports(traffic.flows);
    return [
      `IP4: ${traffic.srcMac} -> ${traffic.dstMac}`,
      `UDP: ${traffic.src} -> ${traffic.dst}`,
      `UDP: ${sport} -> ${traffic.dport} length ${ipTotal - 20} checksum 0`,
      `incrementing ${ipTotal - 28}`,
    ];
  }
  return [
    `IP6: ${traffic.srcMac} -> ${traffic.dstMac}`,
    `IP_IN_IP: ${traffic.outerSrc} -> ${traffic.sid}`,
    `hex 0x${ip4UdpPacket({ src: traffic.src, dst: traffic.dst, sport: FIRST_SPORT, dport: traffic.dport, totalLength: ipTotal }).toString('hex')}`,
  ];
}

export interface PgStream {
  readonly name: string;
  /** The pg interface number the packets arrive on (`source pgK`). */
  readonly source: number;
  readonly bytes: number;
  readonly maxframe: number | undefined;
  readonly worker: number | undefined;
  readonly data: readonly string[];
}

export function pgStreamCommand(s: PgStream): string {
  const lines = [
    'packet-generator new {',
    `  name ${s.name}`,
    '  limit 0',
    `  size ${s.bytes}-${s.bytes}`,
    ...(s.maxframe !== undefined && s.maxframe !== VLIB_FRAME_SIZE ? [`  maxframe ${s.maxframe}`] : []),
    ...(s.worker !== undefined ? [`  worker ${s.worker}`] : []),
    '  node ethernet-input',
    `  source pg${s.source}`,
    '  data {',
    ...s.data.map((d) => `    ${d}`),
    '  }',
    '}',
  ];
  return lines.join('\n');
}

/**
 * The streams of one measurement: per worker (or once without workers) one stream per frame size
 * of the class, weighted by maxframe. Names: <prefix>-<frame>[-w<worker>].
 */
export function buildStreams(opts: {
  readonly prefix: string;
  readonly source: number;
  readonly traffic: Traffic;
  readonly size: SizeClass;
  readonly workers: number;
}): PgStream[] {
  if (!/^[A-Za-z0-9_.-]+$/.test(opts.prefix))
    throw new Error(`stream name prefix ${JSON.stringify(opts.prefix)} must be one word`);
  const frames = maxframes(opts.size.parts);
  const workers = opts.workers > 0 ? Array.from({ length: opts.workers }, (_, i) => i) : [undefined];
  const out: PgStream[] = [];
  for (const worker of workers) {
    opts.size.parts.forEach((part, i) => {
      out.push({
        name: `${opts.prefix}-${frameFor(opts.traffic, part.frame)}${worker === undefined ? '' : `-w${worker}`}`,
        source: opts.source,
        bytes: pgPacketBytes(opts.traffic, part.frame),
        maxframe: frames[i],
        worker,
        data: pgData(opts.traffic, part.frame),
      });
    });
  }
  return out;
}

function ip4Bytes(a: string): number[] {
  const parts = a.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255))
    throw new Error(`not an IPv4 address: ${a}`);
  return parts;
}

/** RFC 1071 checksum of a header. */
export function internetChecksum(bytes: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < bytes.length; i += 2) sum += ((bytes[i] as number) << 8) | (bytes[i + 1] ?? 0);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

/** An IPv4/UDP packet of `totalLength` bytes: TTL 64, DF clear, UDP checksum 0, payload 0, 1, 2, … */
export function ip4UdpPacket(p: {
  src: string;
  dst: string;
  sport: number;
  dport: number;
  totalLength: number;
}): Buffer {
  if (p.totalLength < 28 || p.totalLength > 65535)
    throw new Error(`IPv4/UDP length ${p.totalLength} out of range`);
  const b = Buffer.alloc(p.totalLength);
  b[0] = 0x45;
  b.writeUInt16BE(p.totalLength, 2);
  b[8] = 64;
  b[9] = 17;
  Buffer.from(ip4Bytes(p.src)).copy(b, 12);
  Buffer.from(ip4Bytes(p.dst)).copy(b, 16);
  b.writeUInt16BE(internetChecksum(b.subarray(0, 20)), 10);
  b.writeUInt16BE(p.sport, 20);
  b.writeUInt16BE(p.dport, 22);
  b.writeUInt16BE(p.totalLength - 20, 24);
  for (let i = 28; i < p.totalLength; i++) b[i] = (i - 28) & 0xff;
  return b;
}

/**
 * An IPv6/UDP packet of `totalLength` bytes (IPv6 header included): hop limit 64, traffic class
 * and flow label 0, payload 0, 1, 2, …, and a valid UDP checksum over the pseudo-header
 * (RFC 8200 8.1).
 */
export function ip6UdpPacket(p: {
  src: string;
  dst: string;
  sport: number;
  dport: number;
  totalLength: number;
}): Buffer {
  if (p.totalLength < 48 || p.totalLength > 65535 + 40)
    throw new Error(`IPv6/UDP length ${p.totalLength} out of range`);
  const udpLength = p.totalLength - 40;
  const b = Buffer.alloc(p.totalLength);
  b[0] = 0x60;
  b.writeUInt16BE(udpLength, 4);
  b[6] = 17;
  b[7] = 64;
  ip6Bytes(p.src).copy(b, 8);
  ip6Bytes(p.dst).copy(b, 24);
  b.writeUInt16BE(p.sport, 40);
  b.writeUInt16BE(p.dport, 42);
  b.writeUInt16BE(udpLength, 44);
  for (let i = 48; i < p.totalLength; i++) b[i] = (i - 48) & 0xff;
  b.writeUInt16BE(udp6Checksum(b), 46);
  return b;
}

/** The UDP checksum of an IPv6/UDP packet (its checksum field as zero), 0xffff for a zero sum. */
export function udp6Checksum(packet: Uint8Array): number {
  const udp = packet.subarray(40);
  const pseudo = Buffer.alloc(40);
  Buffer.from(packet.subarray(8, 40)).copy(pseudo, 0);
  pseudo.writeUInt32BE(udp.length, 32);
  pseudo[39] = 17;
  const withoutSum = Buffer.from(udp);
  withoutSum.writeUInt16BE(0, 6);
  const sum = internetChecksum(Buffer.concat([pseudo, withoutSum]));
  return sum === 0 ? 0xffff : sum;
}

function ip6Bytes(a: string): Buffer {
  const b = Buffer.alloc(16);
  const n = ip6ToBigInt(a);
  b.writeBigUInt64BE(n >> 64n, 0);
  b.writeBigUInt64BE(n & 0xffffffffffffffffn, 8);
  return b;
}
