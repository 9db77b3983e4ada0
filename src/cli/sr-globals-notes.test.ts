import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SrGlobalsFileStore } from '../agent/sr-globals-file-store.js';
import { validateConfig } from '../config/validate.js';
import { emptySnapshot, type VppSnapshot } from '../hypervisor/snapshot.js';
import type { SrEncapsReading } from '../srv6/sr-encaps.js';
import { srGlobalsNotes } from './sr-globals-notes.js';

const config = validateConfig({
  node: {
    name: 'hv1',
    underlay: { interface: 'eth0', address: '2001:db8::1/64', gateway: '2001:db8::2' },
    srv6: { locator: 'fc00:1::/48' },
  },
});
const HOP_PROBLEM = 'show sr encaps hop-limit: cli_inband: VPP returned -1 (UNSPECIFIED)';
const SOURCE_PROBLEM = 'show sr encaps source addr: VPP answered "?", not understood';

describe('srGlobalsNotes: what plan --vpp and status say about the SRv6 globals', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'vppnet-notes-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const snapshot = (srEncaps: SrEncapsReading, policies: VppSnapshot['policies'] = []): VppSnapshot => ({
    ...emptySnapshot(),
    vppPid: 42,
    srEncaps,
    policies,
  });
  async function notesWith(
    file: string | undefined,
    srEncaps: SrEncapsReading,
    policies?: VppSnapshot['policies'],
  ): Promise<string[]> {
    const p = path.join(dir, `${Math.random().toString(36).slice(2)}.json`);
    if (file !== undefined) await writeFile(p, file);
    const store = new SrGlobalsFileStore(p, undefined, { readOnly: true });
    return srGlobalsNotes(snapshot(srEncaps, policies), config, await store.load(), store).map((n) =>
      n.replaceAll(p, 'FILE'),
    );
  }

  it('say nothing when VPP reported both', async () => {
    assert.deepEqual(await notesWith(undefined, { hopLimit: 64, source: '::', problems: [] }), []);
  });

  it('say what an unreadable hop limit means for the verdict: from the memory, or counted as not set, and why', async () => {
    const hopOnly = { source: '2001:db8::1', problems: [HOP_PROBLEM] };
    assert.deepEqual(await notesWith('{"version":1,"vppPid":42,"hopLimit":64}\n', hopOnly), [
      `SRv6 hop limit not readable from VPP (${HOP_PROBLEM}); taken from the agent's memory in FILE`,
    ]);
    const notSet = (why: string): string =>
      `SRv6 hop limit not readable from VPP (${HOP_PROBLEM}), nor from the agent's memory (${why}): it counts as not set, so an sr-hop-limit operation may be shown that the agent would not need`;
    assert.deepEqual(await notesWith(undefined, hopOnly), [notSet('FILE does not exist')]);
    assert.deepEqual(await notesWith('{"version":1', hopOnly), [notSet('FILE is corrupt')]);
    assert.deepEqual(await notesWith('{"version":1,"vppPid":7,"hopLimit":64}\n', hopOnly), [
      notSet('FILE is of VPP pid 7, not of this VPP (pid 42): VPP restarted since'),
    ]);
    assert.deepEqual(await notesWith('{"version":1,"vppPid":42,"encapSource":"2001:db8::1"}\n', hopOnly), [
      notSet('FILE holds no hop limit'),
    ]);
  });

  it("take an unreadable encap source from vppnet's policies first", async () => {
    const sourceOnly = { hopLimit: 64, problems: [SOURCE_PROBLEM] };
    const own = { ...({} as VppSnapshot['policies'][number]), bsid: 'fc00:1:ff::1' };
    assert.deepEqual(await notesWith(undefined, sourceOnly, [own]), [
      `SRv6 encap source not readable from VPP (${SOURCE_PROBLEM}); taken from vppnet's SR policies`,
    ]);
    assert.match(
      (await notesWith(undefined, sourceOnly))[0] ?? '',
      /nor from the agent's memory \(FILE does not exist\): it counts as not set, so an sr-encap-source operation/,
    );
  });
});
