import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startVppTarget, type VppTarget } from '../../test/support/vpp-target.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import { msg } from '../vpp/messages/index.js';
import {
  parseSrEncapsHopLimit,
  parseSrEncapsSource,
  readSrEncaps,
  SR_ENCAPS_HOP_LIMIT_COMMAND,
  SR_ENCAPS_SOURCE_COMMAND,
} from './sr-encaps.js';

describe("SRv6 encap globals from VPP's CLI", () => {
  it("parses VPP's lines and nothing else", () => {
    assert.equal(parseSrEncapsHopLimit('SR encaps hop-limit = 64\n'), 64);
    assert.equal(parseSrEncapsHopLimit('SR encaps hop-limit = 255'), 255);
    for (const bad of [
      'SR encaps hop-limit = 0\n',
      'SR encaps hop-limit = 256\n',
      'SR encaps hop-limit = \n',
      "show: unknown input `sr encaps hop-limit'\n",
      '',
      'SR encaps hop-limit = 64\nmore\n',
    ]) {
      assert.equal(parseSrEncapsHopLimit(bad), undefined, JSON.stringify(bad));
    }
    assert.equal(parseSrEncapsSource('SR encaps source addr = fc00:0:0:1::00a0\n'), 'fc00:0:0:1::a0');
    assert.equal(parseSrEncapsSource('SR encaps source addr = ::\n'), '::');
    for (const bad of [
      'SR encaps source addr = 10.0.0.1\n',
      'SR encaps source addr = \n',
      'SR encaps source = fc00::1\n',
    ]) {
      assert.equal(parseSrEncapsSource(bad), undefined, JSON.stringify(bad));
    }
  });

  describe('against a VPP', () => {
    let target: VppTarget;
    let client: VppClient;
    let found: { hop: string; source: string };
    before(async () => {
      target = await startVppTarget();
      client = new VppClient({ socketPath: target.socketPath, healthCheckIntervalMs: 0 });
      await client.connect();
      found = {
        hop: await client.cli(SR_ENCAPS_HOP_LIMIT_COMMAND),
        source: await client.cli(SR_ENCAPS_SOURCE_COMMAND),
      };
    });
    after(async () => {
      // Leave a real VPP's globals as found.
      const hop = parseSrEncapsHopLimit(found.hop);
      const source = parseSrEncapsSource(found.source);
      if (hop !== undefined) await client.call(msg.sr_set_encap_hop_limit, { hop_limit: hop });
      if (source !== undefined) await client.call(msg.sr_set_encap_source, { encaps_source: source });
      await client.close();
      await target.close();
    });

    it('reads back what sr_set_encap_hop_limit and sr_set_encap_source set', async () => {
      await client.call(msg.sr_set_encap_hop_limit, { hop_limit: 23 });
      await client.call(msg.sr_set_encap_source, { encaps_source: '2001:db8:0:0:0:0:0:7a' });
      assert.deepEqual(await readSrEncaps(client), { hopLimit: 23, source: '2001:db8::7a', problems: [] });
      await client.call(msg.sr_set_encap_hop_limit, { hop_limit: 255 });
      assert.equal((await readSrEncaps(client)).hopLimit, 255);
    });
  });
});
