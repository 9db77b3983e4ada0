/**
 * An applying pass cuts every host end it lists off from the host's stack again (HostLinks
 * keepIsolated): what an agent from before the ingress drop made is kept, not made again, and
 * gets its chain. A plan changes nothing on the host, and a host that cannot do it makes a warning,
 * not a failed pass. Against the simulator: it takes no af_packet port on a real host link, so the
 * host end listed here is a leftover the pass then deletes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUnderlay, removeUnderlay, type TestUnderlay } from '../../test/support/underlay.js';
import { SIM_ONLY, startVppTarget, type VppTarget } from '../../test/support/vpp-target.js';
import { validateConfig } from '../config/validate.js';
import { NO_HOST_FILES, type HostLinks } from '../dataplane/context.js';
import { VppClient } from '../vpp/client/vpp-client.js';
import { memoryStore, reconcile } from './reconcile.js';

describe("a pass keeps the host ends it lists cut off from the host's stack", { skip: SIM_ONLY }, () => {
  let target: VppTarget;
  let client: VppClient;
  let underlay: TestUnderlay;
  const LEFTOVER = 'vpv0123456789ab';

  before(async () => {
    target = await startVppTarget();
    client = new VppClient({
      socketPath: target.socketPath,
      clientName: 'isolation',
      healthCheckIntervalMs: 0,
    });
    await client.connect();
    underlay = await createUnderlay(client);
  });
  after(async () => {
    await removeUnderlay(client, underlay);
    await client.close();
    await target.close();
  });

  /** A host with one veth of vppnet's, recording keepIsolated's calls; `fail` makes them fail. */
  function host(fail?: string): { links: HostLinks; isolated: string[][]; deleted: string[] } {
    const veths = new Set([LEFTOVER]);
    const isolated: string[][] = [];
    const deleted: string[] = [];
    const links: HostLinks = {
      createVeth: () => Promise.reject(new Error('unexpected createVeth')),
      deleteVeth: (name) => Promise.resolve(void (deleted.push(name), veths.delete(name))),
      listVeths: (prefix) => Promise.resolve([...veths].filter((v) => v.startsWith(prefix))),
      keepIsolated: (names) => {
        isolated.push([...names]);
        return fail === undefined ? Promise.resolve() : Promise.reject(new Error(fail));
      },
    };
    return { links, isolated, deleted };
  }

  const config = (): ReturnType<typeof validateConfig> =>
    validateConfig({
      node: {
        name: 'hv1',
        underlay: { interface: underlay.name, address: '2001:db8::1/64', gateway: '2001:db8::2' },
        srv6: { locator: 'fc00:1::/48' },
      },
      vpcs: [],
      ports: [],
      remoteRoutes: [],
    });
  const pass = (links: HostLinks, planOnly = false) =>
    reconcile(config(), { client, host: links, files: NO_HOST_FILES, globals: memoryStore(), planOnly });

  it('an applying pass gives every listed host end to keepIsolated, in one call', async () => {
    const h = host();
    const outcome = await pass(h.links);
    assert.deepEqual(h.isolated, [[LEFTOVER]]);
    assert.deepEqual(h.deleted, [LEFTOVER], 'a leftover is still deleted');
    assert.deepEqual(outcome.warnings, []);
  });

  it('a plan leaves the host alone', async () => {
    const h = host();
    await pass(h.links, true);
    assert.deepEqual(h.isolated, []);
  });

  it('a host that cannot do it makes a warning, and the pass applies the rest', async () => {
    const h = host('nft: Operation not supported');
    const outcome = await pass(h.links);
    assert.deepEqual(outcome.warnings, [
      "host ends may pass frames to the host's own stack: nft: Operation not supported",
    ]);
    assert.deepEqual(outcome.result?.failed, []);
    assert.deepEqual(h.deleted, [LEFTOVER]);
  });
});
