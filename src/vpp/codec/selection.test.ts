import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  loadTranscripts,
  payloadOf,
  SKIP_NO_SHARED,
  transcriptsAvailable,
} from '../../../test/support/transcripts.js';
import { VppError } from '../errors.js';
import { definitionByNameCrc, msg } from '../messages/index.js';
import { FRAME_HEADER_LENGTH } from '../wire/frame.js';
import { decodeMessage, encodeMessage } from './message-codec.js';
import { reusingDecoder, selectingDecoder } from './selection.js';
import { ip4ToInt } from '../../net/ip.js';
import { formatIp6 } from '../../net/ip-literal.js';

function payload(frame: Buffer): Buffer {
  return frame.subarray(FRAME_HEADER_LENGTH);
}

const ROUTE = payload(
  encodeMessage(
    msg.ip_route_details,
    9,
    {
      route: {
        table_id: 7,
        stats_index: 3,
        prefix: { address: { af: 0, un: { ip4: '10.1.2.3' } }, len: 32 },
        paths: [
          {
            sw_if_index: 4,
            table_id: 0,
            proto: 0,
            nh: { address: { ip4: '192.0.2.1' } },
            label_stack: [{ label: 100, ttl: 64 }],
            n_labels: 1,
          },
          { sw_if_index: 5, table_id: 0, proto: 0, nh: { address: { ip4: '192.0.2.2' } } },
        ],
      },
    },
    { context: 11 },
  ),
);

const PREFIX_AND_HOPS = {
  context: true,
  route: { prefix: { len: true, address: { un: { ip4: true } } }, paths: { nh: { address: { ip4: true } } } },
} as const;

describe('selectingDecoder: only the selected fields of a message', () => {
  it('builds the selected fields with the whole decoder’s values, and no others', () => {
    const whole = decodeMessage(msg.ip_route_details, ROUTE);
    const buf = Buffer.concat([Buffer.alloc(5, 0xee), ROUTE, Buffer.alloc(9, 0xee)]);
    const part = selectingDecoder(msg.ip_route_details, PREFIX_AND_HOPS)(buf, 5, 5 + ROUTE.length);
    assert.deepEqual(part, {
      context: 11,
      route: {
        prefix: { address: { un: { ip4: '10.1.2.3' } }, len: 32 },
        paths: [{ nh: { address: { ip4: '192.0.2.1' } } }, { nh: { address: { ip4: '192.0.2.2' } } }],
      },
    });
    // Typed from the definition: these are the whole decoder's values.
    assert.equal(part.route.prefix.address.un.ip4, whole.route.prefix.address.un.ip4);
    assert.equal(part.route.paths[1]?.nh.address.ip4, whole.route.paths[1]?.nh.address.ip4);
  });

  it('skips an unselected count-sized array to reach the fields after it', () => {
    // sw_interface_details-like shapes are fixed; ip_route_details' paths come last, so check a
    // message with fields after a variable part: sockclnt_create_reply (message_table[count]).
    const reply = payload(
      encodeMessage(
        msg.sockclnt_create_reply,
        16,
        {
          response: 0,
          index: 5,
          message_table: [
            { index: 1, name: 'a_1' },
            { index: 2, name: 'b_2' },
          ],
        },
        { context: 4 },
      ),
    );
    const part = selectingDecoder(msg.sockclnt_create_reply, { count: true, index: true })(
      reply,
      0,
      reply.length,
    );
    assert.deepEqual(part, { index: 5, count: 2 });
  });

  it(
    'gives, for every frame VPP 26.06 sent, each single field as the whole decoder does',
    { skip: !transcriptsAvailable() && SKIP_NO_SHARED },
    () => {
      for (const t of loadTranscripts('26.06'))
        for (const frame of t.frames) {
          const def = definitionByNameCrc(frame.name_crc);
          assert.ok(def);
          const p = payloadOf(frame);
          const whole = decodeMessage(def, p) as Record<string, unknown>;
          for (const [name] of def.fields) {
            const sel = { [name]: true } as never;
            const part = selectingDecoder(def, sel)(p, 0, p.length) as Record<string, unknown>;
            assert.deepEqual(part, { [name]: whole[name] }, `${frame.name_crc}.${name}`);
          }
        }
    },
  );

  it('fails a short payload as decodeMessage does, and names an unknown field', () => {
    const short = ROUTE.subarray(0, 40);
    assert.throws(
      () => selectingDecoder(msg.ip_route_details, PREFIX_AND_HOPS)(short, 0, short.length),
      (err: unknown) =>
        err instanceof VppError && err.code === 'VPPNET_ERR_DECODE' && /ip_route_details/.test(err.message),
    );
    assert.throws(
      () => selectingDecoder(msg.ip_route_details, { rout: true } as never),
      /ip_route_details: no field "rout" to select/,
    );
  });

  describe('address forms and conditional arms (the steering dump)', () => {
    const steering = (traffic_type: number, fib_table: number, prefix: object, bsid: string): Buffer =>
      payload(
        encodeMessage(
          msg.sr_steering_pol_details,
          3,
          { traffic_type, fib_table, prefix, sw_if_index: 0, bsid },
          { context: 2 },
        ),
      );
    const ip4 = (address: string, len: number): object => ({ address: { af: 0, un: { ip4: address } }, len });
    const ip6 = (address: string, len: number): object => ({ address: { af: 1, un: { ip6: address } }, len });
    const SEL = {
      traffic_type: true,
      bsid: 'repeat',
      prefix: {
        len: true,
        address: { af: true, un: { ip4: 'u32', ip6: { when: 'af', is: 1, select: true } } },
      },
    } as const;
    const frames = [
      steering(4, 7, ip4('10.1.2.0', 24), 'fc00:1::1'),
      steering(4, 7, ip4('255.255.255.255', 32), 'fc00:1::1'),
      steering(4, 8, ip4('0.0.0.0', 0), 'fc00:1::2'),
      steering(6, 8, ip6('2001:db8::5', 128), 'fc00:1::2'),
      steering(6, 9, ip6('::', 0), 'fc00:1::1'),
      steering(4, 9, ip4('192.0.2.1', 32), '::'),
    ];

    it('gives the whole decoder’s values: IPv4 as its number, IPv6 only for af 1, the same BSID text', () => {
      const decode = selectingDecoder(msg.sr_steering_pol_details, SEL);
      for (const f of frames) {
        const whole = decodeMessage(msg.sr_steering_pol_details, f);
        // Inside a larger chunk, as the client decodes: offsets are the buffer's.
        const buf = Buffer.concat([Buffer.alloc(3, 0xee), f, Buffer.alloc(5, 0xee)]);
        const part = decode(buf, 3, 3 + f.length);
        assert.equal(part.traffic_type, whole.traffic_type);
        assert.equal(part.bsid, whole.bsid);
        assert.equal(part.prefix.len, whole.prefix.len);
        assert.equal(part.prefix.address.af, whole.prefix.address.af);
        assert.equal(part.prefix.address.un.ip4, ip4ToInt(whole.prefix.address.un.ip4));
        assert.equal(
          part.prefix.address.un.ip6,
          whole.prefix.address.af === 1 ? whole.prefix.address.un.ip6 : undefined,
        );
      }
    });

    it('repeats the very string for a run of one BSID, and makes a new one when it changes', () => {
      const decode = selectingDecoder(msg.sr_steering_pol_details, SEL);
      const [a, b, c, d] = frames.map((f) => decode(f, 0, f.length).bsid);
      assert.equal(a, 'fc00:1::1');
      assert.equal(b, a);
      assert.equal(c, 'fc00:1::2');
      assert.equal(d, 'fc00:1::2');
      // Not a cache of all values seen: a BSID after another is formatted again, correctly.
      const again = decode(frames[4]!, 0, frames[4]!.length).bsid;
      assert.equal(again, 'fc00:1::1');
    });

    it("gives an address as a copy of its bytes with the 'bytes' form, no text made", () => {
      const decode = selectingDecoder(msg.sr_steering_pol_details, {
        bsid: 'bytes',
        prefix: { address: { af: true, un: { ip6: { when: 'af', is: 1, select: 'bytes' } } } },
      });
      for (const f of frames) {
        const whole = decodeMessage(msg.sr_steering_pol_details, f);
        const buf = Buffer.concat([Buffer.alloc(3, 0xee), f]);
        const part = decode(buf, 3, buf.length);
        const { ip6 } = part.prefix.address.un;
        if (whole.prefix.address.af === 1) {
          assert.ok(ip6 instanceof Uint8Array);
          assert.equal(formatIp6(ip6, 0), whole.prefix.address.un.ip6);
        } else assert.equal(ip6, undefined);
        assert.equal(part.bsid.length, 16);
        assert.equal(formatIp6(part.bsid, 0), whole.bsid);
        // A copy: the frame's buffer is the client's to reuse.
        const before = formatIp6(part.bsid, 0);
        buf.fill(0xff);
        assert.equal(formatIp6(part.bsid, 0), before);
      }
    });

    it('names a form or a condition put where it cannot be', () => {
      assert.throws(
        () => selectingDecoder(msg.sr_steering_pol_details, { bsid: 'u32' } as never),
        /form u32 is for IPv4 addresses, not ip6/,
      );
      assert.throws(
        () => selectingDecoder(msg.sr_steering_pol_details, { fib_table: 'repeat' } as never),
        /form repeat is for an address only/,
      );
      assert.throws(
        () =>
          selectingDecoder(msg.sr_steering_pol_details, {
            prefix: { address: { un: { ip6: { when: 'len', is: 1, select: true } } } },
          } as never),
        /no field len beside it to test/,
      );
    });
    it('reused (the snapshot’s read): the selecting decoder’s values, in one object', () => {
      const selecting = selectingDecoder(msg.sr_steering_pol_details, SEL);
      const reusing = reusingDecoder(msg.sr_steering_pol_details, SEL);
      let first: object | undefined;
      for (const f of frames) {
        const buf = Buffer.concat([Buffer.alloc(7, 0xee), f]);
        const reused = reusing(buf, 7, buf.length);
        first ??= reused;
        assert.equal(reused, first);
        assert.deepEqual(
          JSON.parse(JSON.stringify(reused)),
          JSON.parse(JSON.stringify(selecting(f, 0, f.length))),
        );
        assert.equal(reused.prefix.address.un.ip6, selecting(f, 0, f.length).prefix.address.un.ip6);
      }
      // A short payload fails as decodeMessage does.
      assert.throws(
        () => reusing(frames[0]!.subarray(0, 20), 0, 20),
        (err: unknown) => err instanceof VppError && err.code === 'VPPNET_ERR_DECODE',
      );
    });
  });

  describe('reusingDecoder: one object, overwritten by each message', () => {
    it(
      'gives, for every fixed-size frame VPP 26.06 sent, the whole decoder’s values, whole and by field',
      { skip: !transcriptsAvailable() && SKIP_NO_SHARED },
      () => {
        let checked = 0;
        for (const t of loadTranscripts('26.06'))
          for (const frame of t.frames) {
            const def = definitionByNameCrc(frame.name_crc);
            assert.ok(def);
            const p = payloadOf(frame);
            let reused: Record<string, unknown>;
            try {
              reused = reusingDecoder(def, true)(p, 0, p.length);
            } catch (err) {
              assert.match(String(err), /variable parts/);
              continue;
            }
            const whole: Record<string, unknown> = decodeMessage(def, p);
            assert.deepEqual({ ...reused }, whole, frame.name_crc);
            for (const [name] of def.fields) {
              const part = reusingDecoder(def, { [name]: true } as never)(p, 0, p.length);
              assert.deepEqual({ ...(part as object) }, { [name]: whole[name] }, `${frame.name_crc}.${name}`);
            }
            checked++;
          }
        assert.ok(checked > 0);
      },
    );
  });
});
