import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  loadTranscripts,
  payloadOf,
  SKIP_NO_SHARED,
  transcriptsAvailable,
} from '../../../test/support/transcripts.js';
import { definitionByNameCrc, definitions, msg } from '../messages/index.js';
import { FRAME_HEADER_LENGTH } from '../wire/frame.js';
import { compileFields } from './compile.js';
import { decodeMessage, encodeMessage, contextOffsetOf } from './message-codec.js';
import { nameCrc, type FieldDef, type MessageDef, type TypeRef } from './schema.js';
import { seededRandom } from '../../util/testing/seeded-random.js';

/** Re-encodes a decoded message with its own header values; returns the payload. */
function reencode(def: MessageDef, msgId: number, decoded: Record<string, unknown>): Buffer {
  const header = {
    ...(typeof decoded.client_index === 'number' ? { clientIndex: decoded.client_index } : {}),
    ...(typeof decoded.context === 'number' ? { context: decoded.context } : {}),
  };
  return encodeMessage(def, msgId, decoded as never, header).subarray(FRAME_HEADER_LENGTH);
}

describe(
  'codec against frames recorded from VPP 26.06',
  { skip: !transcriptsAvailable() && SKIP_NO_SHARED },
  () => {
    for (const set of ['26.06', '26.06-design'] as const) {
      if (!transcriptsAvailable()) break;
      for (const t of loadTranscripts(set)) {
        it(`${t.file}: every frame decodes and re-encodes to the same bytes`, () => {
          for (const frame of t.frames) {
            const def = definitionByNameCrc(frame.name_crc);
            assert.ok(def, `no definition for ${frame.name_crc}`);
            const payload = payloadOf(frame);
            assert.equal(payload.readUInt16BE(0), frame.msg_id);
            const decoded = decodeMessage(def, payload) as Record<string, unknown>;
            if (frame.retval !== undefined) assert.equal(decoded.retval, frame.retval);
            if (frame.response !== undefined) assert.equal(decoded.response, frame.response);
            assert.deepEqual(
              reencode(def, frame.msg_id, decoded).toString('hex'),
              frame.hex,
              `${frame.name_crc}`,
            );
          }
        });
      }
    }

    it('decodes field values as VPP meant them', () => {
      const [connect] = loadTranscripts('26.06');
      const reply = decodeMessage(msg.sockclnt_create_reply, payloadOf(connect!.frames[1]!));
      assert.equal(reply.response, 0);
      assert.equal(reply.index, 0x80000001);
      assert.equal(reply.message_table.length, reply.count);
      assert.ok(reply.message_table.some((e) => e.name === 'control_ping_51077d14' && e.index === 23));
    });
  },
);

// ---------------------------------------------------------------------------------------------
// Every generated message: a value built from its definition survives encode → decode → encode.

function sample(type: TypeRef, rnd: () => number, len?: number): unknown {
  const int = (bits: number, signed: boolean): number => {
    const max = 2 ** bits;
    const v = Math.floor(rnd() * max);
    return signed ? v - max / 2 : v;
  };
  if (len !== undefined) {
    if (type === 'u8') return Uint8Array.from({ length: len }, () => int(8, false));
    if (type === 'string') return 'x'.repeat(Math.floor(rnd() * Math.max(0, len - 1)));
    return Array.from({ length: len }, () => sample(type, rnd));
  }
  if (typeof type === 'string') {
    switch (type) {
      case 'u8':
        return int(8, false);
      case 'i8':
        return int(8, true);
      case 'u16':
        return int(16, false);
      case 'i16':
        return int(16, true);
      case 'u32':
        return int(32, false);
      case 'i32':
        return int(32, true);
      case 'u64':
        return BigInt(int(32, false)) * 4294967296n + BigInt(int(32, false));
      case 'i64':
        return -BigInt(int(31, false));
      case 'f64':
        return rnd() * 1e6;
      case 'bool':
        return rnd() < 0.5;
      case 'string':
        return 'cmd-' + Math.floor(rnd() * 1000);
    }
  }
  switch (type.kind) {
    case 'enum':
    case 'enumflag': {
      const vals = Object.values(type.values);
      return vals[Math.floor(rnd() * vals.length)] ?? 0;
    }
    case 'alias':
      if (type.format === 'ip4') return [1, 2, 3, 4].map(() => int(8, false)).join('.');
      if (type.format === 'ip6') return `fd00:${int(16, false).toString(16)}::${int(16, false).toString(16)}`;
      if (type.format === 'mac')
        return '02:fe:' + [1, 2, 3, 4].map(() => int(8, false).toString(16).padStart(2, '0')).join(':');
      return sample(type.type, rnd, type.length);
    case 'struct':
      return sampleFields(type.fields, rnd);
    case 'union': {
      // The widest arm determines every byte of a union.
      const arm = type.arms[type.arms.length - 1] as FieldDef;
      return { [arm[0]]: sample(arm[1], rnd, arm.length === 3 ? arm[2] : undefined) };
    }
  }
}

function sampleFields(fields: readonly FieldDef[], rnd: () => number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    if (f.length === 4) out[f[0]] = sample(f[1], rnd, Math.floor(rnd() * 4));
    else if (f.length === 3 && f[2] === 0)
      out[f[0]] = f[1] === 'string' ? 'variable ' + Math.floor(rnd() * 99) : sample(f[1], rnd, 3);
    else if (f.length === 3) out[f[0]] = sample(f[1], rnd, f[2]);
    else out[f[0]] = sample(f[1], rnd);
  }
  return out;
}

describe('codec round trips for every defined message', () => {
  for (const def of definitions) {
    it(nameCrc(def), () => {
      const rnd = seededRandom(def.name.length * 7919 + def.crc.charCodeAt(0));
      for (let i = 0; i < 5; i++) {
        const value = sampleFields(def.fields, rnd);
        const header = { clientIndex: 0x80000001, context: 1 + i };
        const frame = encodeMessage(def, 1234, value as never, header);
        assert.equal(frame.readUInt32BE(8), frame.length - FRAME_HEADER_LENGTH, 'header length');
        const payload = frame.subarray(FRAME_HEADER_LENGTH);
        assert.equal(payload.readUInt16BE(0), 1234);
        const decoded = decodeMessage(def, payload) as Record<string, unknown>;
        if ('context' in decoded) assert.equal(decoded.context, 1 + i);
        const off = contextOffsetOf(def);
        if (off >= 0) assert.equal(payload.readUInt32BE(off), 1 + i);
        assert.equal(reencode(def, 1234, decoded).toString('hex'), payload.toString('hex'));
      }
    });
  }
});

/** The generic field-by-field reader of compile.ts, which the straight-line decoders must match. */
function genericDecode(def: MessageDef, payload: Buffer): Record<string, unknown> {
  const cur = { off: 2, end: payload.length };
  const out: Record<string, unknown> = {};
  for (const f of compileFields(def.name, def.fields)) out[f.name] = f.read(payload, cur, out);
  return out;
}

describe("straight-line decoders give the generic reader's values", () => {
  for (const def of definitions) {
    it(nameCrc(def), () => {
      const rnd = seededRandom(def.name.length * 104729 + def.crc.charCodeAt(1));
      for (let i = 0; i < 5; i++) {
        const payload = encodeMessage(def, 77, sampleFields(def.fields, rnd) as never, {
          clientIndex: 3,
          context: 9 + i,
        }).subarray(FRAME_HEADER_LENGTH);
        assert.deepStrictEqual(decodeMessage(def, payload), genericDecode(def, payload));
        // Every truncation fails the same way, never with a partial value.
        for (const cut of [1, Math.floor(payload.length / 2)]) {
          const short = payload.subarray(0, payload.length - cut);
          let generic: unknown;
          try {
            generic = genericDecode(def, short);
          } catch {
            generic = 'throws';
          }
          if (generic === 'throws')
            assert.throws(() => decodeMessage(def, short), { code: 'VPPNET_ERR_DECODE' });
          else assert.deepStrictEqual(decodeMessage(def, short), generic);
        }
      }
    });
  }
});

describe('codec details', () => {
  it('fills count fields from the array length and applies .api defaults', () => {
    const payload = encodeMessage(
      msg.ip_route_add_del,
      7,
      {
        route: {
          table_id: 10,
          prefix: { address: { af: 0, un: { ip4: '10.1.0.0' } }, len: 16 },
          paths: [{ sw_if_index: 3 }, { sw_if_index: 4 }],
        },
      },
      { clientIndex: 1, context: 2 },
    ).subarray(FRAME_HEADER_LENGTH);
    const decoded = decodeMessage(msg.ip_route_add_del, payload);
    assert.equal(decoded.is_add, true, 'is_add defaults to true as in ip.api');
    assert.equal(decoded.route.n_paths, 2);
    assert.deepEqual(
      decoded.route.paths.map((p) => p.sw_if_index),
      [3, 4],
    );
    assert.equal(decoded.route.prefix.address.un.ip4, '10.1.0.0');
  });

  it('writes f64 in host order and integers big-endian', () => {
    // An independent byte builder: u16 id, u32 client_index, u32 context, then fields.
    const frame = encodeMessage(
      msg.sw_interface_set_flags,
      0x0102,
      { sw_if_index: 5, flags: 1 },
      { clientIndex: 0x80000001, context: 9 },
    );
    const expected = Buffer.from('01028000000100000009' + '00000005' + '00000001', 'hex');
    assert.equal(frame.subarray(FRAME_HEADER_LENGTH).toString('hex'), expected.toString('hex'));
  });

  it('writes an address given as bytes, or an IPv4 address as its number, as its text', () => {
    const steer = (bsid: string | Uint8Array, ip4: string | number): Buffer =>
      encodeMessage(msg.sr_steering_add_del, 7, {
        bsid_addr: bsid,
        table_id: 1000,
        prefix: { address: { af: 0, un: { ip4 } }, len: 24 },
        traffic_type: 3,
      });
    const text = steer('fc00:1:ff::3e8', '10.1.2.0');
    const bsid = Buffer.from('fc000001' + '00ff0000' + '00000000' + '000003e8', 'hex');
    assert.deepEqual(steer(bsid, 0x0a010200), text);
    assert.deepEqual(steer(new Uint8Array(bsid), '10.1.2.0'), text);
    assert.ok(text.includes(Buffer.from('0a010200', 'hex')));
    // Not an address: a fraction, a negative number, bytes of another width.
    for (const ip4 of [1.5, -1, 2 ** 32])
      assert.throws(() => steer(bsid, ip4), { code: 'VPPNET_ERR_ENCODE' });
    assert.throws(() => steer(bsid.subarray(0, 4), '10.1.2.0'), { code: 'VPPNET_ERR_ENCODE' });
  });

  it('rejects out-of-range integers, bad addresses and overlong strings with VPPNET_ERR_ENCODE', () => {
    assert.throws(() => encodeMessage(msg.sw_interface_set_flags, 1, { sw_if_index: -1 }), {
      code: 'VPPNET_ERR_ENCODE',
    });
    assert.throws(() => encodeMessage(msg.sr_set_encap_source, 1, { encaps_source: 'fd00::zz' }), {
      code: 'VPPNET_ERR_ENCODE',
    });
    assert.throws(() => encodeMessage(msg.sw_interface_tag_add_del, 1, { tag: 'x'.repeat(64) }), {
      code: 'VPPNET_ERR_ENCODE',
    });
  });

  it('reports a truncated payload with VPPNET_ERR_DECODE and the message name', () => {
    const frame = encodeMessage(msg.sw_interface_set_flags, 1, { sw_if_index: 5 });
    assert.throws(
      () => decodeMessage(msg.sw_interface_set_flags, frame.subarray(FRAME_HEADER_LENGTH, frame.length - 2)),
      (err: Error & { code?: string }) => {
        assert.equal(err.code, 'VPPNET_ERR_DECODE');
        assert.match(err.message, /sw_interface_set_flags/);
        return true;
      },
    );
  });
});
