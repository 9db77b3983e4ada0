/** actualSteering: which dumped steering entries are the node's own. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { emptySnapshot } from '../hypervisor/snapshot.js';
import { SteeringEntries } from './steering-entries.js';
import { actualSteering } from './actual.js';
import type { AgentConfig } from '../config/model.js';
import { entries, B1, B2 } from '../../test/support/steering-plan.js';

describe('actualSteering', () => {
  it("keeps only entries, IPv4 and IPv6, that point into the node's BSID prefix", () => {
    const s = {
      ...emptySnapshot(),
      steering: entries([
        { table: 10, prefix: '10.1.0.0/24', bsid: B1 },
        { table: 77, prefix: '203.0.113.0/24', bsid: 'fd99::1' },
        { table: 10, prefix: '10.2.0.0/24', bsid: B2 },
      ]),
      steering6: entries(
        [
          { table: 77, prefix: '2001:db8:77::/64', bsid: 'fd99::1' },
          { table: 10, prefix: '2001:db8:a::5/128', bsid: B2 },
          { table: 10, prefix: '::/1', bsid: B1 },
        ],
        6,
      ),
    };
    const config = {
      node: { srv6: { bsidPrefix: { address: 'fc00:1:ff::', len: 64 } } },
    } as unknown as AgentConfig;
    const own = actualSteering(s, config);
    const list = (e: SteeringEntries): string[] =>
      Array.from({ length: e.size }, (_, i) => `${e.table(i)} ${e.prefix(i)} ${e.bsid(i)}`);
    assert.deepEqual(list(own.steering), [`10 10.1.0.0/24 ${B1}`, `10 10.2.0.0/24 ${B2}`]);
    assert.equal(own.steering6.family, 6);
    assert.deepEqual(list(own.steering6), [`10 2001:db8:a::5/128 ${B2}`, `10 ::/1 ${B1}`]);
  });
});
