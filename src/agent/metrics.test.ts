import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { VPP_API_RELEASE, VPPNET_VERSION } from '../util/version.js';
import { RecordingVppApi } from '../vpp/client/testing/recording-vpp-api.js';
import { Agent } from './agent.js';
import { FileConfigSource } from './file-config-source.js';
import type { DropCounts } from '../dataplane/drop-counters.js';
import { parseShowPolicer } from '../dataplane/policer-counters.js';
import { AgentMetrics } from './metrics.js';
import type { ReconcileSummary } from './status.js';
import { configYaml, FakeReconciler, makeTempDir } from './testing/agent-fixtures.js';

type Pass = Parameters<AgentMetrics['observeReconcile']>[0];

function pass(over: Partial<ReconcileSummary>): Pass {
  return { outcome: 'ok', durationMs: 5, brokenPorts: [], triggers: ['drift'], planned: 0, ...over };
}

describe('AgentMetrics', () => {
  it('vppnet_build_info names the release and the VPP API it speaks', async () => {
    const text = await new AgentMetrics().text();
    assert.match(
      text,
      new RegExp(`^vppnet_build_info\\{version="${VPPNET_VERSION}",vpp_api="${VPP_API_RELEASE}"\\} 1$`, 'm'),
    );
  });

  it('vppnet_drift_detected_total counts drift-check passes that planned changes, nothing else', async () => {
    const m = new AgentMetrics();
    m.observeReconcile(pass({ planned: 0 }));
    assert.match(await m.text(), /^vppnet_drift_detected_total 0$/m, 'in sync is no drift');
    m.observeReconcile(pass({ planned: 3 }));
    m.observeReconcile(pass({ planned: 2, triggers: ['drift', 'config-change'] }));
    m.observeReconcile(pass({ planned: 2, triggers: ['datastore'] }));
    m.observeReconcile(pass({ planned: 2, kind: 'routes' }));
    assert.match(await m.text(), /^vppnet_drift_detected_total 1$/m);
  });

  it('the datastore gauges read the health at each scrape, rejected keys included', async () => {
    const m = new AgentMetrics();
    let health = { synced: true, stale: false, rejectedKeys: 2 };
    m.watchDatastore(() => health);
    let text = await m.text();
    assert.match(text, /^vppnet_datastore_rejected_keys 2$/m);
    assert.match(text, /^vppnet_datastore_stale 0$/m);
    health = { synced: true, stale: true, rejectedKeys: 0 };
    text = await m.text();
    assert.match(text, /^vppnet_datastore_rejected_keys 0$/m);
    assert.match(text, /^vppnet_datastore_stale 1$/m);
  });

  it("vppnet_dataplane_drops_total shows VPP's counts at each scrape, and keeps them while VPP cannot answer", async () => {
    const m = new AgentMetrics();
    let counts: DropCounts | undefined = {
      spoofedSource4: 3,
      spoofedSource6: 1,
      srv6Ingress: 7,
      podSpoofed: 2,
      podNotAllowed4: 5,
      podNotAllowed6: 4,
      vmServiceRate4: 9,
      vmServiceRate6: 6,
    };
    m.watchDrops(() => Promise.resolve(counts));
    let text = await m.text();
    assert.match(text, /^vppnet_dataplane_drops_total\{reason="spoofed_source",family="ipv4"\} 3$/m);
    assert.match(text, /^vppnet_dataplane_drops_total\{reason="spoofed_source",family="ipv6"\} 1$/m);
    assert.match(text, /^vppnet_dataplane_drops_total\{reason="srv6_outside_fleet",family="ipv6"\} 7$/m);
    assert.match(text, /^vppnet_dataplane_drops_total\{reason="pod_spoofed_source",family="ipv4"\} 2$/m);
    assert.match(text, /^vppnet_dataplane_drops_total\{reason="pod_not_allowed",family="ipv4"\} 5$/m);
    assert.match(text, /^vppnet_dataplane_drops_total\{reason="pod_not_allowed",family="ipv6"\} 4$/m);
    assert.match(text, /^vppnet_dataplane_drops_total\{reason="vm_service_rate",family="ipv4"\} 9$/m);
    assert.match(text, /^vppnet_dataplane_drops_total\{reason="vm_service_rate",family="ipv6"\} 6$/m);
    counts = undefined;
    text = await m.text();
    assert.match(
      text,
      /^vppnet_dataplane_drops_total\{reason="spoofed_source",family="ipv4"\} 3$/m,
      'the last figures',
    );
    // A restarted VPP counts from 0 again: Prometheus takes the lower value as a counter reset.
    counts = {
      spoofedSource4: 1,
      spoofedSource6: 0,
      srv6Ingress: 0,
      podSpoofed: 0,
      podNotAllowed4: 0,
      podNotAllowed6: 0,
      vmServiceRate4: 0,
      vmServiceRate6: 0,
    };
    text = await m.text();
    assert.match(text, /^vppnet_dataplane_drops_total\{reason="spoofed_source",family="ipv4"\} 1$/m);
  });

  it("vppnet_vm_service_rate_drops_total counts what each VM port's policer dropped, and only vppnet's policers", async () => {
    const m = new AgentMetrics();
    const show = [
      'Name "vppnet:vm-rate:vm1" type 1r2c cir 1000 eir 0 cb 65536 eb 0',
      'rate type kbps, round type closest',
      'conform action transmit, exceed action drop, violate action drop',
      ' ',
      'Policer at index 0: single rate, not color-aware',
      'cir 233480 tok/period, pir 1 tok/period, scale 15',
      'cur lim 2147483648, cur bkt 2138112000, ext lim 0, ext bkt 4285595648',
      'last update 164023910',
      'conform 5 packets, 534 bytes',
      'exceed 2 packets, 66 bytes',
      'violate 192524 packets, 6353292 bytes',
      '-----------',
      'Name "someone-else" type 1r2c cir 10 eir 0 cb 1500 eb 0',
      'conform 1 packets, 100 bytes',
      'exceed 0 packets, 0 bytes',
      'violate 7 packets, 700 bytes',
      '-----------',
    ].join('\n');
    m.watchPolicers(() => Promise.resolve(parseShowPolicer(show)));
    const text = await m.text();
    assert.match(text, /^vppnet_vm_service_rate_drops_total\{port="vm1"\} 192526$/m);
    assert.doesNotMatch(text, /someone-else/);
  });

  it("vppnet_vm_service_nat_sessions shows each VM port's NAT sessions at each scrape", async () => {
    const m = new AgentMetrics();
    let counts = new Map([
      ['vm1', 256],
      ['vm2', 3],
    ]);
    m.watchNatSessions(() => Promise.resolve(counts));
    let text = await m.text();
    assert.match(text, /^vppnet_vm_service_nat_sessions\{port="vm1"\} 256$/m);
    assert.match(text, /^vppnet_vm_service_nat_sessions\{port="vm2"\} 3$/m);
    counts = new Map([['vm2', 1]]);
    text = await m.text();
    assert.doesNotMatch(text, /port="vm1"/, 'a VM without sessions is no longer listed');
  });

  it("vppnet_ready is the agent's /readyz verdict at the time of the scrape", async () => {
    const tmp = await makeTempDir();
    const client = new RecordingVppApi();
    await mkdir(join(tmp.dir, 'etc'));
    await writeFile(join(tmp.dir, 'etc', 'config.yaml'), configYaml());
    const agent = new Agent({
      source: new FileConfigSource({ path: join(tmp.dir, 'etc', 'config.yaml') }),
      stateDir: join(tmp.dir, 'state'),
      client,
      reconcileFn: new FakeReconciler().fn,
      driftIntervalMs: 0,
    });
    try {
      await agent.start();
      assert.equal(agent.readiness().ready, false, 'VPP not connected yet');
      assert.match(await agent.metrics.text(), /^vppnet_ready 0$/m);
      client.handshake();
      await agent.whenIdle();
      assert.equal(agent.readiness().ready, true);
      assert.match(await agent.metrics.text(), /^vppnet_ready 1$/m);
    } finally {
      await agent.stop();
      await tmp.remove();
    }
  });
});
