/**
 * Real packets for the real-VPP traffic tests: frames crafted with scapy (Debian's python3-scapy)
 * and sent from inside a network namespace, and UDP listeners that print what arrives. See
 * test/support/packets/ for the Python scripts.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const PY = '/usr/bin/python3';
export const PACKETS = fileURLToPath(new URL('../../../test/support/packets/', import.meta.url));

export const hasScapy = (): boolean => spawnSync(PY, ['-c', 'import scapy.all']).status === 0;
export const has = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

/** Why a real-packet suite cannot run here, or false: it needs a real VPP, root, scapy and ping. */
export function realPacketsSkip(socket: string | undefined): string | false {
  if (!socket) return 'needs a real VPP 26.06: VPP_API_SOCKET';
  if (process.getuid?.() !== 0) return 'needs root (network namespaces, veth pairs)';
  if (!hasScapy()) return `needs ${PY} with scapy (Debian's python3-scapy)`;
  if (!has('ping')) return 'needs ping (iputils-ping)';
  return false;
}

export function sh(...args: string[]): string {
  const r = spawnSync(args[0] as string, args.slice(1), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr || r.stdout}`);
  return r.stdout;
}

/** One ICMP echo answered. */
export function pings(netns: string, to: string): boolean {
  return spawnSync('ip', ['netns', 'exec', netns, 'ping', '-c', '1', '-W', '1', to]).status === 0;
}

/** Runs one of test/support/packets' scripts in a netns; resolves with its output. */
export function run(netns: string, script: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn('ip', ['netns', 'exec', netns, PY, path.join(PACKETS, script), ...args]);
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${script}: exit ${code}: ${err}`)),
    );
  });
}

/**
 * Datagrams the kernel dropped inside a namespace because a UDP socket's receive buffer was full
 * (`RcvbufErrors` of Udp in /proc/net/snmp plus Udp6 in /proc/net/snmp6): a listener too slow for a
 * flood loses them after VPP delivered them, which is the test's loss, not the dataplane's.
 */
export function udpReceiveBufferErrors(netns: string): number {
  const snmp = sh('ip', 'netns', 'exec', netns, 'cat', '/proc/net/snmp', '/proc/net/snmp6');
  const lines = snmp.split('\n');
  const header = lines.find((l) => l.startsWith('Udp: ') && l.includes('RcvbufErrors'))?.split(/\s+/) ?? [];
  const values = lines.find((l) => l.startsWith('Udp: ') && /^Udp: \d/.test(l))?.split(/\s+/) ?? [];
  const ip4 = Number(values[header.indexOf('RcvbufErrors')] ?? 0);
  const ip6 = Number(/^Udp6RcvbufErrors\s+(\d+)/m.exec(snmp)?.[1] ?? 0);
  return ip4 + ip6;
}

/** A text as the hex sniff() matches frames against. */
export const hex = (text: string): string => Buffer.from(text).toString('hex');

/** What sniff() gives: `ready` once it listens, `done` with the frames (hex) up to the marker's. */
export interface Sniffer {
  readonly ready: Promise<void>;
  readonly done: Promise<string[]>;
  exited(): boolean;
}

/**
 * Everything arriving on `iface` in `netns` (the test's own when null; frames as hex) up to and
 * including the first frame that contains `marker`; rejects when the marker has not come in
 * `seconds`. An AF_PACKET socket for every protocol, as VPP's af_packet interfaces read.
 */
export function sniff(netns: string | null, iface: string, marker: string, seconds = 15): Sniffer {
  const args = [path.join(PACKETS, 'sniff.py'), iface, hex(marker), String(seconds)];
  const p = netns ? spawn('ip', ['netns', 'exec', netns, PY, ...args]) : spawn(PY, args);
  const frames: string[] = [];
  let err = '';
  p.stderr.on('data', (d: Buffer) => (err += d.toString()));
  let readyResolve: () => void = () => undefined;
  let readyReject: (err: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    readyResolve = resolve;
    readyReject = reject;
  });
  let exited = false;
  createInterface({ input: p.stdout }).on('line', (line) =>
    line === 'ready' ? readyResolve() : frames.push(line),
  );
  const done = new Promise<string[]>((resolve, reject) =>
    p.on('close', (code) => {
      exited = true;
      // One that could not listen (no such interface) fails the test rather than leave it waiting.
      readyReject(new Error(`sniff.py on ${iface} ended before listening (${code}): ${err}`));
      return code === 0
        ? resolve(frames)
        : reject(new Error(`no ${marker} on ${iface} (${code}): ${err} ${frames.length} frames`));
    }),
  );
  return { ready, done, exited: () => exited };
}

/** Sends scapy frame expressions, in order, out of `iface` inside `netns`. */
export function send(netns: string, iface: string, ...frames: string[]): void {
  sh('ip', 'netns', 'exec', netns, PY, path.join(PACKETS, 'send.py'), iface, ...frames);
}

/**
 * A UDP listener inside a namespace: every datagram it got, as "source payload" (the payload as
 * text, or as hex with `hex`). IPv4 and IPv6 on one socket, or IPv4 alone with `ipv4Only` (which
 * also receives broadcasts, e.g. DHCP on 67 and 68).
 */
export class Listener {
  readonly got: string[] = [];
  readonly #proc: ChildProcessWithoutNullStreams;
  readonly #waiters: { match: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  readonly ready: Promise<void>;

  constructor(netns: string, port: number, opts: { hex?: boolean; ipv4Only?: boolean } = {}) {
    const flags = [...(opts.hex ? ['--hex'] : []), ...(opts.ipv4Only ? ['--ipv4'] : [])];
    this.#proc = spawn('ip', [
      'netns',
      'exec',
      netns,
      PY,
      path.join(PACKETS, 'listen.py'),
      String(port),
      ...flags,
    ]);
    let readyResolve: () => void = () => undefined;
    let stderr = '';
    this.#proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    this.ready = new Promise((resolve, reject) => {
      readyResolve = resolve;
      // A listener that dies before binding (a bad port, a Python error) fails the suite's setup
      // instead of leaving it waiting for "ready" forever.
      this.#proc.on('exit', (code) => reject(new Error(`listen.py in ${netns} exited ${code}: ${stderr}`)));
    });
    createInterface({ input: this.#proc.stdout }).on('line', (line) => {
      if (line === 'ready') return readyResolve();
      this.got.push(line);
      for (const w of [...this.#waiters]) if (w.match(line)) w.resolve(line);
    });
  }

  /** Resolves when a datagram with this payload has arrived (rejects after 10 s: lost). */
  async receives(text: string): Promise<void> {
    await this.#first((l) => l.endsWith(` ${text}`), `${text} never arrived`);
  }

  /** Resolves with the first datagram so far (or to come) whose line matches. */
  next(match: (line: string) => boolean): Promise<string> {
    return this.#first(match, 'nothing matching arrived');
  }

  #first(match: (line: string) => boolean, lost: string): Promise<string> {
    const seen = this.got.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = {
        match,
        resolve: (line: string): void => {
          clearTimeout(timer);
          this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
          resolve(line);
        },
      };
      const timer = setTimeout(() => reject(new Error(`${lost}; got ${this.got.join(', ')}`)), 10_000);
      this.#waiters.push(waiter);
    });
  }

  has(text: string): boolean {
    return this.got.some((l) => l.endsWith(` ${text}`));
  }

  close(): void {
    this.#proc.stdin.end();
    this.#proc.kill();
  }
}
