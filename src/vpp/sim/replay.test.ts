/**
 * Replays both recorded VPP 26.06 transcripts (../shared/vpp-transcripts) against a fresh
 * simulator: every request frame goes out as recorded, and every frame VPP sent must come back
 * byte for byte, in order, events included.
 *
 * The simulator is configured with what the recorded VPP had and the API cannot tell: its message
 * table (from the recorded handshake, in its order), its pid, its interfaces at start, and one
 * dataplane event (below). Fields VPP takes from its build, not from requests, are masked — only
 * these, each narrowly:
 *
 *   MASKS
 *   - show_version_reply.build_date, show_version_reply.build_directory: compile-time strings of
 *     the recorded build;
 *   - cli_inband_reply.reply for `show version`: the "built by <user> on <host> at <date>" part
 *     (the version before it is compared).
 *
 * Nothing else is masked: MACs in the transcripts were all given by the requests (or belong to
 * the start-up memif, which the test declares), pids come from the configuration or the
 * requests, and the message table is published in the recorded order.
 *
 * Host interfaces: af_packet steps need the recorded host interfaces (vpn-rec0; vhv1vm, vsmd,
 * vsdhcp) and the tap step needs the network namespace "rec-pod". As root the test creates real
 * veth pairs and the namespace and removes them afterwards; otherwise it runs with
 * checkHostInterfaces false and a permissive host, and says so.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeMessage, encodeMessage } from '../codec/message-codec.js';
import type { MessageDef } from '../codec/schema.js';
import { definitionByNameCrc, msg } from '../messages/index.js';
import {
  loadTranscripts,
  payloadOf,
  SKIP_NO_SHARED,
  transcriptsAvailable,
  type Transcript,
} from '../../../test/support/transcripts.js';
import { RawClient } from '../../../test/support/raw-client.js';
import { permissiveHost, realHost, VppSimulator, type HostOps, type InitialInterface } from './index.js';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** A mask rewrites the fields VPP does not derive from requests in a decoded frame. */
type Mask = (fields: Record<string, unknown>, recorded: Record<string, unknown>) => void;

const MASKS: ReadonlyMap<string, Mask> = new Map<string, Mask>([
  [
    `${msg.show_version_reply.name}_${msg.show_version_reply.crc}`,
    (f, r) => {
      f.build_date = r.build_date;
      f.build_directory = r.build_directory;
    },
  ],
  [
    `${msg.cli_inband_reply.name}_${msg.cli_inband_reply.crc}`,
    (f, r) => {
      const re = /^(vpp v\S+) built by .* on .* at .*\n$/;
      const mine = re.exec(String(f.reply));
      const theirs = re.exec(String(r.reply));
      if (mine && theirs && mine[1] === theirs[1]) f.reply = r.reply;
    },
  ],
]);

function frameOf(payload: Buffer): Buffer {
  const h = Buffer.alloc(16);
  h.writeUInt32BE(payload.length, 8);
  return Buffer.concat([h, payload]);
}

/** Applies the mask for this message (if any) and re-encodes both sides with the same codec. */
function masked(nameCrc: string, got: Buffer, recorded: Buffer): [Buffer, Buffer] {
  const mask = MASKS.get(nameCrc);
  const def = definitionByNameCrc(nameCrc);
  if (!mask || !def) return [got, recorded];
  const id = recorded.readUInt16BE(0);
  const reencode = (d: MessageDef, fields: Record<string, unknown>): Buffer =>
    encodeMessage(d, id, fields, { context: fields.context as number }).subarray(16);
  const r = decodeMessage(def, recorded) as Record<string, unknown>;
  // the codec reproduces the recorded bytes, so the comparison below is of fields, not of codecs
  assert.deepEqual(reencode(def, r), recorded, `${nameCrc}: codec round trip`);
  const g = { ...(decodeMessage(def, got) as Record<string, unknown>) };
  mask(g, r);
  return [reencode(def, g), recorded];
}

function describeFrame(nameCrc: string, p: Buffer): string {
  const def = definitionByNameCrc(nameCrc);
  if (!def) return p.toString('hex');
  try {
    return JSON.stringify(decodeMessage(def, p), (_k, v: unknown) =>
      typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v,
    );
  } catch {
    return p.toString('hex');
  }
}

function tableOf(connect: Transcript): Map<string, number> {
  const reply = connect.frames.find((f) => f.dir === 'from_vpp');
  assert.ok(reply);
  const r = decodeMessage(msg.sockclnt_create_reply, payloadOf(reply));
  return new Map(r.message_table.map((e) => [e.name, e.index]));
}

function pidOf(steps: readonly Transcript[]): number {
  for (const s of steps) {
    for (const f of s.frames) {
      if (
        f.dir === 'from_vpp' &&
        f.name_crc === `${msg.control_ping_reply.name}_${msg.control_ping_reply.crc}`
      ) {
        return decodeMessage(msg.control_ping_reply, payloadOf(f)).vpe_pid;
      }
    }
  }
  throw new Error('no control_ping_reply in the transcript');
}

/** Host resources the recorded VPP had; created as root, cleaned up after. */
class HostFixture {
  readonly created: string[] = [];
  readonly netns: string[] = [];

  veth(name: string): void {
    if (existsSync(`/sys/class/net/${name}`)) return;
    execFileSync('ip', ['link', 'add', name, 'type', 'veth', 'peer', 'name', `${name.slice(0, 11)}-pr`], {
      stdio: 'pipe',
    });
    this.created.push(name);
  }

  namespace(name: string): void {
    if (existsSync(`/var/run/netns/${name}`)) return;
    execFileSync('ip', ['netns', 'add', name], { stdio: 'pipe' });
    this.netns.push(name);
  }

  cleanup(): void {
    for (const n of this.created) {
      try {
        execFileSync('ip', ['link', 'del', n], { stdio: 'pipe' });
      } catch {
        // gone already
      }
    }
    for (const n of this.netns) {
      try {
        execFileSync('ip', ['netns', 'del', n], { stdio: 'pipe' });
      } catch {
        // gone already
      }
    }
  }
}

interface ReplaySpec {
  readonly set: '26.06' | '26.06-design';
  readonly initialInterfaces: readonly InitialInterface[];
  readonly hostInterfaces: readonly string[];
  readonly netns: readonly string[];
  /** Dataplane events to inject before a step (by file name). */
  readonly before?: Readonly<Record<string, (sim: VppSimulator) => void>>;
}

const SPECS: readonly ReplaySpec[] = [
  {
    set: '26.06',
    // The recorded VPP had no interface but local0 (03-sw_interface_dump_all).
    initialInterfaces: [],
    hostInterfaces: ['vpn-rec0'],
    netns: ['rec-pod'],
  },
  {
    set: '26.06-design',
    // 02's dump: memif1/0 (sw_if_index 1), link up, admin down, MTU 9000, this MAC.
    initialInterfaces: [{ name: 'memif1/0', type: 'memif', mac: '02:fe:24:04:80:93', linkUp: true }],
    hostInterfaces: ['vhv1vm', 'vsmd', 'vsdhcp'],
    netns: [],
    before: {
      // Between 02 (route fc00:2::/48 via 2001:db8::2 on memif1/0) and 03, the peer VPP answered
      // neighbour discovery: VPP installed the adjacency host route 2001:db8::2/128, which took
      // load-balance 19 (10.0.0.1/32 in 03 shows stats_index 20, not 19).
      '03-vpc_gateway_loopback.json': (sim) => sim.learnNeighbor(1, '2001:db8::2'),
    },
  },
];

describe(
  'replay of the recorded VPP 26.06 transcripts',
  { skip: transcriptsAvailable() ? false : SKIP_NO_SHARED },
  () => {
    const fixture = new HostFixture();
    let dir = '';

    before(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-sim-replay-'));
    });

    after(async () => {
      fixture.cleanup();
      await rm(dir, { recursive: true, force: true });
    });

    for (const spec of SPECS) {
      it(`${spec.set}: every VPP frame, byte for byte`, async (t) => {
        const steps = loadTranscripts(spec.set);
        const connect = steps[0] as Transcript;
        assert.equal(connect.step, 'connect');
        let host: HostOps;
        let checkHostInterfaces = true;
        if (isRoot) {
          for (const n of spec.hostInterfaces) fixture.veth(n);
          for (const n of spec.netns) fixture.namespace(n);
          // The vhost-user step asks for a server socket under /run: VPP would create it; the test
          // keeps the host clean and only pretends to listen.
          host = { ...realHost, listenUnix: (p) => permissiveHost.listenUnix(p) };
        } else {
          t.diagnostic(
            'not root: host interfaces and namespaces are not created; checkHostInterfaces false, permissive host',
          );
          host = permissiveHost;
          checkHostInterfaces = false;
        }
        const socketPath = path.join(dir, `${spec.set}.sock`);
        const sim = await VppSimulator.start({
          socketPath,
          messageTable: tableOf(connect),
          initialInterfaces: spec.initialInterfaces,
          pid: pidOf(steps),
          vhostNet: false, // the recording machine had no /dev/vhost-net
          checkHostInterfaces,
          host,
        });
        const client = await RawClient.connect(socketPath);
        try {
          let compared = 0;
          let sent = sim.handled; // what the connection's setup already sent
          for (const step of steps) {
            const file = path.basename(step.file);
            spec.before?.[file]?.(sim);
            const requests = step.frames.filter((f) => f.dir === 'request');
            const expected = step.frames.filter((f) => f.dir === 'from_vpp');
            const start = client.received.length;
            for (const r of requests) client.sendRaw(frameOf(payloadOf(r)));
            const got = await client.waitForCount(start + expected.length, 5000);
            for (let i = 0; i < expected.length; i++) {
              const want = expected[i] as (typeof expected)[number];
              const [g, w] = masked(want.name_crc, got[start + i] as Buffer, payloadOf(want));
              if (!g.equals(w)) {
                assert.fail(
                  `${step.file} frame ${i} (${want.name_crc}) differs:\n  got  ${describeFrame(want.name_crc, g)}\n  want ${describeFrame(want.name_crc, w)}`,
                );
              }
              compared++;
            }
            // Nothing beyond what VPP sent: once every request is handled and every byte the
            // simulator wrote is read, an extra frame would be among them.
            sent += requests.length;
            await sim.whenHandled(sent);
            if (step !== steps[steps.length - 1]) {
              await client.waitForBytes(sim.bytesWritten, 5000);
              assert.equal(client.received.length, start + expected.length, `${step.file}: extra frames`);
            }
          }
          t.diagnostic(`${compared} frames compared`);
          await client.closed; // sockclnt_delete closes the socket
        } finally {
          client.close();
          await sim.close();
        }
      });
    }
  },
);
