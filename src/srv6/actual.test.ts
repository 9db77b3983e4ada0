import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validateConfig } from '../config/validate.js';
import { keys } from '../dataplane/keys.js';
import { emptySnapshot, type VppSnapshot } from '../hypervisor/snapshot.js';
import type { SrEncapsReading } from './sr-encaps.js';
import { actualSrv6, type SrGlobalsMemory } from './actual.js';

const config = validateConfig({
  node: {
    name: 'hv1',
    underlay: { interface: 'eth0', address: '2001:db8::1/64', gateway: '2001:db8::2' },
    srv6: { locator: 'fc00:1::/48' },
  },
});

function globalsOf(
  srEncaps: SrEncapsReading,
  memory?: SrGlobalsMemory,
): { source?: unknown; hopLimit?: unknown } {
  const s: VppSnapshot = { ...emptySnapshot(), vppPid: 42, srEncaps };
  const out = actualSrv6(s, config, memory);
  const value = (key: string): unknown => out.find((r) => r.key === key)?.value;
  return { source: value(keys.srEncapSource()), hopLimit: value(keys.srHopLimit()) };
}

const unreadable = { problems: ['show sr encaps hop-limit: …', 'show sr encaps source addr: …'] };

describe('actualSrv6: the encap globals', () => {
  it('are what VPP reports, whatever the agent remembers', () => {
    const memory = { vppPid: 42, encapSource: '2001:db8::9', hopLimit: 9 };
    assert.deepEqual(globalsOf({ hopLimit: 17, source: '2001:db8::1', problems: [] }, memory), {
      source: { address: '2001:db8::1' },
      hopLimit: { hopLimit: 17 },
    });
    // VPP's initial '::' is no source: the plan creates one.
    assert.deepEqual(globalsOf({ hopLimit: 64, source: '::', problems: [] }, memory), {
      source: undefined,
      hopLimit: { hopLimit: 64 },
    });
  });

  it("fall back to the agent's memory of this VPP process only when VPP's answer was not understood", () => {
    assert.deepEqual(globalsOf(unreadable, { vppPid: 42, encapSource: '2001:db8::9', hopLimit: 9 }), {
      source: { address: '2001:db8::9' },
      hopLimit: { hopLimit: 9 },
    });
    assert.deepEqual(
      globalsOf(unreadable, { vppPid: 41, encapSource: '2001:db8::9', hopLimit: 9 }),
      { source: undefined, hopLimit: undefined },
      'memory of an earlier VPP process',
    );
    assert.deepEqual(globalsOf(unreadable), { source: undefined, hopLimit: undefined });
  });
});
