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
import { selectingDecoder } from './selection.js';

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
});
