/** A steering member applied from SteeringEntries' columns sends what its descriptor sends. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SteeringResources } from './steering-resources.js';
import { steering6Descriptor, steeringDescriptor } from './descriptors.js';
import type { DataplaneContext } from '../dataplane/context.js';
import { decodeMessage, encodeMessage } from '../vpp/codec/message-codec.js';
import { FRAME_HEADER_LENGTH } from '../vpp/wire/frame.js';
import { msg } from '../vpp/messages/index.js';
import type { MessageDef } from '../vpp/codec/schema.js';
import { entries, B1, B2 } from '../../test/support/steering-plan.js';

describe('a steering member applied from its columns', () => {
  it('sends the bytes the descriptor sends for its Resource, to create, delete and update', async () => {
    const sent: Buffer[] = [];
    const recorder = {
      client: {
        call: (def: MessageDef, input: Readonly<Record<string, unknown>>) => {
          sent.push(encodeMessage(def, 1, input));
          return Promise.resolve({ retval: 0 });
        },
      },
    } as unknown as DataplaneContext;
    const sides = [
      new SteeringResources(
        entries([
          { table: 4_000_000_000, prefix: '192.168.255.128/25', bsid: B1 },
          { table: 10, prefix: '0.0.0.0/0', bsid: 'fc00:1:ff:0:1:2:3:4' },
        ]),
      ),
      new SteeringResources(
        entries(
          [
            { table: 4_000_000_000, prefix: '2001:db8:a:0:5054:ff:fe62:a01/128', bsid: B1 },
            { table: 10, prefix: '::/1', bsid: 'fc00:1:ff:0:1:2:3:4' },
            { table: 10, prefix: '8000::/1', bsid: B2 },
            { table: 11, prefix: '::5/128', bsid: B2 },
            { table: 11, prefix: 'ffff:ffff:ffff:ffff::/64', bsid: B2 },
          ],
          6,
        ),
      ),
    ];
    for (const side of sides) {
      const descriptor = side.entries.family === 4 ? steeringDescriptor : steering6Descriptor;
      assert.equal(side.kind, descriptor.kind);
      for (let i = 0; i < side.size; i++) {
        for (const action of ['create', 'delete'] as const) {
          await side.apply(recorder, action, i);
          await descriptor[action](recorder, side.resource(i));
          const [fromColumns, fromResource] = sent.splice(0);
          assert.ok(fromColumns && fromResource);
          assert.equal(fromColumns.toString('hex'), fromResource.toString('hex'), `${action} ${side.key(i)}`);
        }
        // An update re-points the entry from another BSID: the desired member's request.
        const previous = descriptor.resource({ ...side.resource(i).value, bsid: 'fc00:1:ff::9' });
        await side.apply(recorder, 'update', i);
        await descriptor.update?.(recorder, side.resource(i), previous);
        const [fromColumns, fromResource] = sent.splice(0);
        assert.ok(fromColumns && fromResource);
        assert.equal(fromColumns.toString('hex'), fromResource.toString('hex'), `update ${side.key(i)}`);
        const request = decodeMessage(msg.sr_steering_add_del, fromColumns.subarray(FRAME_HEADER_LENGTH));
        assert.equal(request.is_del, false);
        assert.equal(request.traffic_type, side.entries.family);
      }
    }
  });
});
