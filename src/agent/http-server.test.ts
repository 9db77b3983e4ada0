import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { mkdir, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Agent } from './agent.js';
import { FileConfigSource } from './file-config-source.js';
import { AgentHttpServer } from './http-server.js';
import { configYaml, FakeReconciler, makeTempDir } from './testing/agent-fixtures.js';
import { RecordingVppApi } from '../vpp/client/testing/recording-vpp-api.js';

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

function call(port: number, path: string, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('AgentHttpServer', () => {
  let tmp: Awaited<ReturnType<typeof makeTempDir>>;
  let client: RecordingVppApi;
  let agent: Agent;
  let server: AgentHttpServer;
  let port: number;

  beforeEach(async () => {
    tmp = await makeTempDir();
    await mkdir(join(tmp.dir, 'etc'));
    await writeFile(join(tmp.dir, 'etc', 'config.yaml'), configYaml());
    client = new RecordingVppApi();
    agent = new Agent({
      source: new FileConfigSource({ path: join(tmp.dir, 'etc', 'config.yaml') }),
      stateDir: join(tmp.dir, 'state'),
      client,
      reconcileFn: new FakeReconciler().fn,
      driftIntervalMs: 0,
    });
    server = new AgentHttpServer({
      host: '127.0.0.1',
      port: 0,
      status: () => agent.status(),
      metrics: agent.metrics,
    });
    port = (await server.listen()).port;
    await agent.start();
  });

  afterEach(async () => {
    await agent.stop();
    await server.close();
    await tmp.remove();
  });

  it('serves Prometheus metrics with every vppnet metric and the process metrics', async () => {
    client.handshake();
    await agent.whenIdle();
    diagnostics
      .channel('vppnet:plan:op')
      .publish({ action: 'create', kind: 'route', key: 'r1', outcome: 'ok', durationMs: 1 });
    diagnostics
      .channel('vppnet:vpp:request')
      .publish({ name: 'ip_route_add_del', durationMs: 0.4, outcome: 'ok' });
    diagnostics.channel('vppnet:attachment').publish({
      op: 'attach',
      id: 'vpn0123456789ab',
      outcome: 11,
      durationMs: 120,
      phasesMs: { queue: 0.1, netns: 30, vpp_lock: 60, vpp: 29.9 },
    });

    const reply = await call(port, '/metrics');
    assert.equal(reply.status, 200);
    assert.match(String(reply.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    for (const name of [
      'vppnet_reconcile_duration_seconds',
      'vppnet_reconcile_total',
      'vppnet_operations_total',
      'vppnet_vpp_request_duration_seconds',
      'vppnet_vpp_requests_total',
      'vppnet_vpp_connection_state',
      'vppnet_owned_objects',
      'vppnet_config_valid',
      'vppnet_attachment_duration_seconds',
      'vppnet_attachment_phase_seconds',
      'process_cpu_user_seconds_total',
      'nodejs_eventloop_lag_seconds',
    ]) {
      assert.match(reply.body, new RegExp(`^# TYPE ${name} `, 'm'), name);
    }
    assert.match(reply.body, /^vppnet_reconcile_total\{outcome="ok"\} 1$/m);
    assert.match(reply.body, /^vppnet_operations_total\{action="create",kind="route",outcome="ok"\} 1$/m);
    assert.match(reply.body, /^vppnet_vpp_requests_total\{message="ip_route_add_del",outcome="ok"\} 1$/m);
    assert.match(reply.body, /^vppnet_vpp_request_duration_seconds_count\{message="ip_route_add_del"\} 1$/m);
    assert.match(reply.body, /^vppnet_vpp_connection_state\{state="ready"\} 1$/m);
    assert.match(reply.body, /^vppnet_vpp_connection_state\{state="connecting"\} 0$/m);
    assert.match(reply.body, /^vppnet_owned_objects\{kind="route"\} 3$/m);
    assert.match(reply.body, /^vppnet_config_valid 1$/m);
    assert.match(
      reply.body,
      /^vppnet_attachment_duration_seconds_bucket\{le="0.1",op="attach",outcome="11"\} 0$/m,
    );
    assert.match(
      reply.body,
      /^vppnet_attachment_duration_seconds_bucket\{le="0.15",op="attach",outcome="11"\} 1$/m,
    );
    assert.match(
      reply.body,
      /^vppnet_attachment_phase_seconds_bucket\{le="0.05",op="attach",phase="vpp_lock"\} 0$/m,
    );
    assert.match(
      reply.body,
      /^vppnet_attachment_phase_seconds_bucket\{le="0.1",op="attach",phase="vpp_lock"\} 1$/m,
    );
    assert.doesNotMatch(reply.body, /phase="record"/, 'a phase the call never reached is not observed');
  });

  it('stops counting diagnostics once the agent stopped', async () => {
    await agent.stop();
    diagnostics
      .channel('vppnet:plan:op')
      .publish({ action: 'delete', kind: 'route', key: 'r1', outcome: 'ok', durationMs: 1 });
    const reply = await call(port, '/metrics');
    assert.doesNotMatch(reply.body, /vppnet_operations_total\{action="delete"/);
  });

  it('answers /healthz whatever the state of VPP', async () => {
    const reply = await call(port, '/healthz');
    assert.equal(reply.status, 200);
    assert.equal(reply.body, 'ok\n');
  });

  it('answers /readyz with 503 and the reasons until VPP is connected and reconciled, then 200', async () => {
    const notReady = await call(port, '/readyz');
    assert.equal(notReady.status, 503);
    assert.equal(notReady.headers['content-type'], 'application/json');
    const body = JSON.parse(notReady.body) as { ready: boolean; reasons: string[] };
    assert.equal(body.ready, false);
    assert.match(body.reasons.join('\n'), /VPP at .* is not connected/);

    client.handshake();
    await agent.whenIdle();
    const ready = await call(port, '/readyz');
    assert.equal(ready.status, 200);
    assert.deepEqual(JSON.parse(ready.body), { ready: true, reasons: [], brokenPorts: [] });
  });

  it('serves the status as JSON', async () => {
    client.handshake();
    await agent.whenIdle();
    const reply = await call(port, '/status?verbose=1');
    assert.equal(reply.status, 200);
    const status = JSON.parse(reply.body) as ReturnType<Agent['status']>;
    assert.equal(status.phase, 'running');
    assert.equal(status.config.valid, true);
    assert.equal(status.vpp.state, 'ready');
    assert.equal(status.lastReconcile?.outcome, 'ok');
    assert.deepEqual(status.owned, { route: 3 });
  });

  it('answers 404 for unknown paths and 405 for other methods', async () => {
    const missing = await call(port, '/nope');
    assert.equal(missing.status, 404);
    assert.match(missing.body, /no such endpoint: \/nope/);
    const post = await call(port, '/readyz', 'POST');
    assert.equal(post.status, 405);
    assert.equal(post.headers.allow, 'GET');
    assert.equal((await call(port, '/metrics', 'DELETE')).status, 405);
  });

  it('metricsOnly: /metrics and nothing else (health and status stay on loopback)', async () => {
    const metricsServer = new AgentHttpServer({
      host: '127.0.0.1',
      port: 0,
      status: () => agent.status(),
      metrics: agent.metrics,
      metricsOnly: true,
    });
    const metricsPort = (await metricsServer.listen()).port;
    try {
      const metrics = await call(metricsPort, '/metrics');
      assert.equal(metrics.status, 200);
      assert.match(metrics.body, /^# TYPE vppnet_reconcile_total counter$/m);
      for (const path of ['/status', '/readyz', '/healthz'])
        assert.equal((await call(metricsPort, path)).status, 404, path);
      assert.equal((await call(port, '/status')).status, 200, 'the main listener still has them');
    } finally {
      await metricsServer.close();
    }
  });
});
