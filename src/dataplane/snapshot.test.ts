import assert from 'node:assert/strict';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { describe, it } from 'node:test';
import type { VppApi } from '../vpp/client/vpp-api.js';
import { loadSnapshot } from './snapshot.js';

/** A VPP connection that closed: every request fails, as VppClient's do once close() is called. */
function closedClient(): VppApi {
  const closed = (): Promise<never> => Promise.reject(new Error('client closed'));
  return new Proxy({} as VppApi, {
    get: (_target, name) => {
      if (name === 'supports') return () => true;
      if (name === 'then') return undefined;
      return closed;
    },
  });
}

describe('loadSnapshot on a connection that closes', () => {
  for (const steering of [true, false]) {
    it(`rejects once and leaves no rejection unhandled (steering ${steering ? 'read' : 'left out'})`, async () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      try {
        await assert.rejects(
          loadSnapshot(closedClient(), {
            externalInterfaces: [],
            sharedTables: [],
            services: true,
            steering,
          }),
          /client closed/,
        );
        // Node reports unhandled rejections once the microtask queue drains: one macrotask later.
        await nextMacrotask();
        await nextMacrotask();
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
      // A rejection nobody handles ends the agent's process (Node's default): fleet mode's drift
      // check reads without steering, and an agent stopping under it closed its connection.
      assert.deepEqual(unhandled, []);
    });
  }
});
