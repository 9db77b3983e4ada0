import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import v8 from 'node:v8';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Agent, type AgentOptions } from './agent.js';
import { FileConfigSource } from './file-config-source.js';
import type { ConfigStatus, ReconcileSummary } from './status.js';
import {
  configYaml,
  failedOp,
  FakeReconciler,
  INVALID_CONFIG_YAML,
  makeTempDir,
  nextEvent,
  RecordingLogger,
  replaceFile,
} from './testing/agent-fixtures.js';
import { RecordingVppApi } from '../vpp/client/testing/recording-vpp-api.js';
import { ManualTimers } from '../util/testing/manual-timers.js';

describe('Agent', () => {
  let tmp: Awaited<ReturnType<typeof makeTempDir>>;
  let configPath: string;
  let stateDir: string;
  let client: RecordingVppApi;
  let reconciler: FakeReconciler;
  let logger: RecordingLogger;
  let agent: Agent | undefined;

  beforeEach(async () => {
    tmp = await makeTempDir();
    await mkdir(join(tmp.dir, 'etc'));
    configPath = join(tmp.dir, 'etc', 'config.yaml');
    await writeFile(configPath, configYaml());
    stateDir = join(tmp.dir, 'state');
    client = new RecordingVppApi();
    reconciler = new FakeReconciler();
    logger = new RecordingLogger();
    agent = undefined;
  });

  afterEach(async () => {
    await agent?.stop();
    await tmp.remove();
  });

  function makeAgent(overrides: Partial<AgentOptions> = {}): Agent {
    // The source shares the agent's timers and logger, as main.ts composes them.
    const { timers } = overrides;
    const source = new FileConfigSource({
      path: configPath,
      debounceMs: 20,
      logger,
      ...(timers && { timers }),
    });
    agent = new Agent({
      source,
      stateDir,
      client,
      reconcileFn: reconciler.fn,
      logger,
      driftIntervalMs: 0,
      retryInitialMs: 20,
      retryMaxMs: 100,
      ...overrides,
    });
    return agent;
  }

  const configEvent = (a: Agent, accept: (s: ConfigStatus) => boolean): Promise<ConfigStatus> =>
    nextEvent<ConfigStatus>((l) => {
      a.on('config', l);
      return () => a.off('config', l);
    }, accept);

  const reconcileEvent = (
    a: Agent,
    accept: (s: ReconcileSummary) => boolean = () => true,
  ): Promise<ReconcileSummary> =>
    nextEvent<ReconcileSummary>((l) => {
      a.on('reconcile', l);
      return () => a.off('reconcile', l);
    }, accept);

  it('reconciles once VPP connects and is ready after a successful pass', async () => {
    const a = makeAgent();
    await a.start();
    await a.whenIdle();
    assert.equal(reconciler.passes.length, 0, 'nothing to reconcile against before VPP connects');
    assert.equal(client.started, 1);
    assert.match(a.readiness().reasons.join('\n'), /VPP at .* is not connected \(connecting\)/);

    client.handshake();
    await a.whenIdle();
    assert.equal(reconciler.passes.length, 1);
    const status = a.status();
    assert.deepEqual(status.lastReconcile?.triggers, ['vpp-connect']);
    assert.equal(status.lastReconcile?.outcome, 'ok');
    assert.deepEqual(status.owned, { route: 3 });
    assert.equal(status.vpp.connections, 1);
    assert.deepEqual(a.readiness(), { ready: true, reasons: [], brokenPorts: [] });
    assert.equal(reconciler.maxConcurrent, 1);
  });

  it('logs one line per pod ADD/DEL with where its time went, while running only', async () => {
    const a = makeAgent();
    await a.start();
    const channel = diagnostics.channel('vppnet:attachment');
    channel.publish({
      op: 'attach',
      id: 'vpn1',
      outcome: 'ok',
      durationMs: 41.26,
      phasesMs: { netns: 30.04, vpp: 11.22 },
    });
    channel.publish({ op: 'detach', id: 'vpn2', outcome: 11, durationMs: 5, phasesMs: { record: 5 } });
    assert.deepEqual(
      logger.records
        .filter((r) => r.fields.attachment !== undefined)
        .map((r) => [r.level, r.message, r.fields]),
      [
        [
          'info',
          'pod attached',
          { op: 'attach', attachment: 'vpn1', outcome: 'ok', ms: 41.3, phasesMs: { netns: 30, vpp: 11.2 } },
        ],
        [
          'warn',
          'detach failed',
          { op: 'detach', attachment: 'vpn2', outcome: 11, ms: 5, phasesMs: { record: 5 } },
        ],
      ],
    );
    // The start line says what memory V8 sized its heap for (a cgroup limit, or the machine's).
    const start = logger.records.find((r) => r.message === 'vppnet-agent starting');
    assert.equal(start?.fields.heapLimitMiB, Math.round(v8.getHeapStatistics().heap_size_limit / 2 ** 20));
    const limit = start?.fields.memoryLimitMiB;
    assert.ok(limit === null || (typeof limit === 'number' && limit > 0), String(limit));
    await a.stop();
    channel.publish({ op: 'attach', id: 'vpn3', outcome: 'ok', durationMs: 1, phasesMs: {} });
    assert.ok(!logger.records.some((r) => r.fields.attachment === 'vpn3'), 'a stopped agent logs nothing');
  });

  it('keeps the last good config in force when the file becomes invalid, and says why', async () => {
    const a = makeAgent();
    await a.start();
    client.handshake();
    await a.whenIdle();
    assert.match(await a.metrics.text(), /^vppnet_config_valid 1$/m);

    const invalid = configEvent(a, (s) => !s.valid);
    await replaceFile(configPath, INVALID_CONFIG_YAML);
    const status = await invalid;
    assert.ok(status.problems.length >= 2, 'every problem is reported');
    assert.ok(status.inForceSince !== undefined);

    const readiness = a.readiness();
    assert.equal(readiness.ready, false);
    assert.match(
      readiness.reasons.join('\n'),
      /config .*config\.yaml is invalid \(node\.name: .*\); the last good config stays in force/,
    );
    assert.match(await a.metrics.text(), /^vppnet_config_valid 0$/m);
    const logged = logger.at('error').find((r) => r.message.includes('is invalid'));
    assert.ok(logged, 'the invalid config is logged');
    assert.deepEqual(logged.fields.problems, status.problems);
    for (const p of status.problems) assert.ok(logged.message.includes(p.path), `the log names ${p.path}`);

    // A pass now still uses the last good config.
    const pass = await a.reconcileNow();
    assert.equal(pass.outcome, 'ok');
    assert.equal(reconciler.passes.at(-1)?.config.node.srv6.hopLimit, 64);

    const fixed = configEvent(a, (s) => s.valid);
    const reconciled = reconcileEvent(a);
    await replaceFile(configPath, configYaml({ hopLimit: 32 }));
    await fixed;
    await reconciled;
    await a.whenIdle();
    assert.equal(reconciler.passes.at(-1)?.config.node.srv6.hopLimit, 32);
    assert.deepEqual(a.readiness(), { ready: true, reasons: [], brokenPorts: [] });
    assert.match(await a.metrics.text(), /^vppnet_config_valid 1$/m);
  });

  it('reconciles exactly once per valid change, and not for a rewrite with equal content', async () => {
    const a = makeAgent();
    await a.start();
    client.handshake();
    await a.whenIdle();
    assert.equal(reconciler.passes.length, 1);

    const reconciled = reconcileEvent(a);
    await replaceFile(configPath, configYaml({ hopLimit: 32 }));
    assert.deepEqual((await reconciled).triggers, ['config-change']);
    await a.whenIdle();
    assert.equal(reconciler.passes.length, 2);
    // A stray second event of the same change is one more read of the same file: no pass.
    assert.equal((await a.reloadConfig()).valid, true);
    await a.whenIdle();
    assert.equal(reconciler.passes.length, 2, 'a re-read of the changed file is not another change');

    const reread = configEvent(a, (s) => s.valid);
    await writeFile(configPath, configYaml({ hopLimit: 32 }));
    await reread;
    await a.whenIdle();
    assert.equal(reconciler.passes.length, 2, 'equal content is not a change');
  });

  it('follows a Kubernetes ConfigMap update (the ..data symlink swap)', async () => {
    // The layout the kubelet makes: config.yaml -> ..data/config.yaml, ..data -> ..<timestamp>.
    const mount = join(tmp.dir, 'configmap');
    await mkdir(join(mount, '..2024_01_01_00_00_00.1'), { recursive: true });
    await writeFile(join(mount, '..2024_01_01_00_00_00.1', 'config.yaml'), configYaml());
    await symlink('..2024_01_01_00_00_00.1', join(mount, '..data'));
    await symlink('..data/config.yaml', join(mount, 'config.yaml'));
    configPath = join(mount, 'config.yaml');

    const a = makeAgent();
    await a.start();
    client.handshake();
    await a.whenIdle();
    assert.equal(reconciler.passes.length, 1);

    const reconciled = reconcileEvent(a);
    await mkdir(join(mount, '..2024_01_01_00_01_00.2'));
    await writeFile(join(mount, '..2024_01_01_00_01_00.2', 'config.yaml'), configYaml({ hopLimit: 32 }));
    await symlink('..2024_01_01_00_01_00.2', join(mount, '..data_tmp'));
    await rename(join(mount, '..data_tmp'), join(mount, '..data'));
    await rm(join(mount, '..2024_01_01_00_00_00.1'), { recursive: true });
    await reconciled;
    await a.whenIdle();
    assert.equal(reconciler.passes.length, 2);
    assert.equal(reconciler.passes[1]?.config.node.srv6.hopLimit, 32);
    // The swap's later events re-read the same new file: no pass.
    await a.reloadConfig();
    await a.whenIdle();
    assert.equal(reconciler.passes.length, 2);
  });

  it('folds everything requested during a pass into exactly one follow-up pass', async () => {
    const a = makeAgent();
    await a.start();
    reconciler.hold();
    const started = reconciler.nextPassStarted();
    client.handshake();
    await started;

    const first = a.reconcileNow();
    const second = a.reconcileNow();
    const changed = configEvent(a, (s) => s.valid);
    await replaceFile(configPath, configYaml({ hopLimit: 32 }));
    await changed;
    assert.equal(reconciler.passes.length, 1, 'no second pass while one runs');

    reconciler.release();
    const [r1, r2] = await Promise.all([first, second]);
    assert.equal(r1, r2, 'both requests are answered by the same pass');
    assert.deepEqual([...r1.triggers].sort(), ['config-change', 'manual']);
    await a.whenIdle();
    assert.equal(reconciler.passes.length, 2);
    assert.equal(reconciler.passes[1]?.config.node.srv6.hopLimit, 32);
    assert.equal(reconciler.maxConcurrent, 1);
  });

  it('resyncs fully after VPP reconnects, and is not ready until that pass is done', async () => {
    const a = makeAgent();
    await a.start();
    client.handshake();
    await a.whenIdle();

    client.drop();
    assert.match(a.readiness().reasons.join('\n'), /not connected \(reconnecting: ECONNRESET\)/);
    client.handshake({ pid: 5000 });
    assert.deepEqual(a.readiness().reasons, ['VPP connected; the full resync has not finished yet']);
    await a.whenIdle();
    assert.equal(reconciler.passes.length, 2);
    assert.deepEqual(a.status().lastReconcile?.triggers, ['vpp-reconnect']);
    assert.equal(a.status().vpp.connections, 2);
    assert.equal(a.readiness().ready, true);
  });

  it('stops a pass between batches when the VPP connection it started on is gone', async () => {
    const a = makeAgent();
    await a.start();
    reconciler.hold();
    const started = reconciler.nextPassStarted();
    client.handshake();
    await started;
    const shouldStop = reconciler.passes[0]?.opts.shouldStop;
    assert.equal(shouldStop?.(), false);
    client.drop();
    assert.equal(shouldStop?.(), true);
    client.handshake({ pid: 5000 });
    assert.equal(
      shouldStop?.(),
      true,
      'a new connection is a different VPP process as far as the plan knows',
    );
    reconciler.release();
    await a.whenIdle();
    assert.equal(reconciler.passes.length, 2);
  });

  it('retries a pass with failures after a backoff, logging each failure', async () => {
    reconciler.results.push({
      failed: [failedOp('route:ip4:10:10.0.0.7/32', 'ip_route_add_del: VNET_API_ERROR_NO_SUCH_TABLE (-6)')],
    });
    const a = makeAgent();
    let readinessWhenPartial: readonly string[] = [];
    const partial = reconcileEvent(a, (s) => {
      readinessWhenPartial = a.readiness().reasons;
      return s.outcome === 'partial';
    });
    const recovered = reconcileEvent(a, (s) => s.outcome === 'ok');
    await a.start();
    client.handshake();

    const p = await partial;
    assert.equal(p.failed, 1);
    assert.deepEqual(p.failures, [
      {
        action: 'create',
        kind: 'route',
        key: 'route:ip4:10:10.0.0.7/32',
        error: 'ip_route_add_del: VNET_API_ERROR_NO_SUCH_TABLE (-6)',
      },
    ]);
    assert.match(
      readinessWhenPartial.join('\n'),
      /last reconcile was partial: 1 of 1 operations failed \(first: create route:ip4:10:10\.0\.0\.7\/32: ip_route_add_del/,
    );
    const failureLog = logger.at('error').find((r) => r.fields.key === 'route:ip4:10:10.0.0.7/32');
    assert.equal(failureLog?.fields.err, 'ip_route_add_del: VNET_API_ERROR_NO_SUCH_TABLE (-6)');

    const ok = await recovered;
    assert.deepEqual(ok.triggers, ['retry']);
    await a.whenIdle();
    assert.equal(a.status().nextRetryAt, undefined);
    assert.equal(a.readiness().ready, true);
    assert.match(await a.metrics.text(), /^vppnet_reconcile_total\{outcome="partial"\} 1$/m);
  });

  it('reports a pass that fails as a whole as an error, and retries it', async () => {
    reconciler.results.push({ throws: new Error('VPPNET_ERR_CONN_LOST: connection to VPP lost') });
    const a = makeAgent();
    let reasons: readonly string[] = [];
    const failed = reconcileEvent(a, (s) => {
      reasons = a.readiness().reasons;
      return s.outcome === 'error';
    });
    const recovered = reconcileEvent(a, (s) => s.outcome === 'ok');
    await a.start();
    client.handshake();
    assert.equal((await failed).error, 'VPPNET_ERR_CONN_LOST: connection to VPP lost');
    assert.deepEqual(reasons, ['the last reconcile failed: VPPNET_ERR_CONN_LOST: connection to VPP lost']);
    await recovered;
    assert.match(await a.metrics.text(), /^vppnet_reconcile_total\{outcome="error"\} 1$/m);
  });

  it('checks for drift periodically, and stops doing so on stop()', async () => {
    const timers = new ManualTimers();
    const a = makeAgent({ driftIntervalMs: 30_000, timers });
    await a.start();
    client.handshake();
    await a.whenIdle();
    assert.deepEqual(timers.armed, [30_000], 'the next drift check is due in one interval');
    for (let check = 1; check <= 2; check++) {
      const drift = reconcileEvent(a, (s) => s.triggers.includes('drift'));
      assert.equal(timers.runNext(), 30_000);
      await drift;
      await a.whenIdle();
      assert.deepEqual(timers.armed, [30_000], `after drift check ${check} the next one is armed`);
    }
    assert.equal(reconciler.passes.length, 3);
    await a.stop();
    assert.deepEqual(timers.armed, [], 'no drift check is left armed');
  });

  it('retries with a doubling delay up to the maximum, and stops retrying after a good pass', async () => {
    const timers = new ManualTimers();
    const failure = {
      failed: [failedOp('route:ip4:10:10.0.0.7/32', 'ip_route_add_del: VNET_API_ERROR_NO_SUCH_TABLE (-6)')],
    };
    reconciler.results.push(failure, failure, failure, failure, failure);
    const a = makeAgent({ timers, retryInitialMs: 1_000, retryMaxMs: 5_000 });
    await a.start();
    client.handshake();
    await a.whenIdle();
    const delays: number[] = [];
    for (let retry = 0; retry < 5; retry++) {
      const [delayMs] = timers.armed;
      assert.ok(delayMs !== undefined, `retry ${retry} is armed`);
      assert.equal(a.status().nextRetryAt, new Date(timers.now() + delayMs).toISOString());
      delays.push(delayMs);
      timers.runNext();
      await a.whenIdle();
    }
    assert.deepEqual(delays, [1_000, 2_000, 4_000, 5_000, 5_000]);
    assert.deepEqual(a.status().lastReconcile?.triggers, ['retry']);
    assert.equal(a.status().lastReconcile?.outcome, 'ok');
    assert.deepEqual(timers.armed, [], 'a good pass leaves no retry armed');
    assert.equal(a.status().nextRetryAt, undefined);
  });

  it('retries each failing resource on its own backoff: one that keeps failing does not delay a new failure', async () => {
    const timers = new ManualTimers();
    const refused = failedOp(
      'route:ip4:10:10.0.0.7/32',
      'ip_route_add_del: VNET_API_ERROR_NO_SUCH_TABLE (-6)',
    );
    const other = failedOp(
      'route:ip4:10:10.0.0.8/32',
      'ip_route_add_del: VNET_API_ERROR_NO_MATCHING_INTERFACE (-4)',
    );
    reconciler.results.push(
      { failed: [refused] },
      { failed: [refused] },
      { failed: [other], skipped: [{ op: refused.op, reason: 'held' }] },
    );
    const a = makeAgent({ timers, retryInitialMs: 1_000, retryMaxMs: 60_000 });
    await a.start();
    client.handshake();
    await a.whenIdle();
    assert.deepEqual(timers.armed, [1_000], 'the first failure: retried after the initial delay');
    timers.runNext();
    await a.whenIdle();
    assert.deepEqual(timers.armed, [2_000], 'the same op failed again: its delay doubled');
    const failing = a.status().failing;
    assert.equal(failing?.count, 1);
    assert.equal(failing?.resources[0]?.key, refused.op.key);
    assert.equal(failing?.resources[0]?.attempts, 2);
    assert.equal(failing?.resources[0]?.error, 'ip_route_add_del: VNET_API_ERROR_NO_SUCH_TABLE (-6)');
    assert.match(await a.metrics.text(), /^vppnet_failing_resources\{kind="route"\} 1$/m);

    // A pass before the refused route's retry is due: it is held, and the other route fails anew.
    timers.advance(500);
    await a.reconcileNow();
    const hold = reconciler.passes.at(-1)?.opts.hold;
    assert.ok(hold, 'the pass was told what to hold');
    assert.match(
      hold(refused.op) ?? '',
      /^held until .*: create failed 2 times in a row \(ip_route_add_del: VNET_API_ERROR_NO_SUCH_TABLE/,
    );
    assert.equal(hold(other.op), undefined, 'nothing else is held');
    assert.equal(
      hold({ ...refused.op, resource: { ...refused.op.resource, value: { nextHop: 'changed' } } }),
      undefined,
      'a new desired value is tried at once',
    );
    await a.whenIdle();
    assert.deepEqual(timers.armed, [1_000], "the new failure's initial delay, not the refused route's 1.5 s");
    assert.equal(a.status().failing?.count, 2);

    // Both retried, converged: nothing failing, nothing armed, the gauge gone.
    timers.runNext();
    await a.whenIdle();
    assert.equal(a.status().failing, undefined);
    assert.deepEqual(timers.armed, []);
    assert.doesNotMatch(await a.metrics.text(), /^vppnet_failing_resources\{/m);
  });

  it('waits for a valid config when the first one is invalid', async () => {
    await writeFile(configPath, INVALID_CONFIG_YAML);
    const a = makeAgent();
    await a.start();
    client.handshake();
    await a.whenIdle();
    assert.equal(reconciler.passes.length, 0);
    assert.match(a.readiness().reasons.join('\n'), /is invalid .*; no valid config was loaded yet/);
    assert.match(await a.metrics.text(), /^vppnet_config_valid 0$/m);

    const reconciled = reconcileEvent(a);
    await replaceFile(configPath, configYaml());
    await reconciled;
    await a.whenIdle();
    assert.equal(a.readiness().ready, true);
  });

  it('hands the reconciler a globals store kept in the state directory', async () => {
    const a = makeAgent();
    await a.start();
    client.handshake();
    await a.whenIdle();
    const globals = reconciler.passes[0]?.opts.globals;
    assert.ok(globals);
    await globals.save({ vppPid: 4242, encapSource: '2001:db8::1', hopLimit: 64 });
    const { readFile } = await import('node:fs/promises');
    assert.deepEqual(JSON.parse(await readFile(join(stateDir, 'sr-globals.json'), 'utf8')), {
      version: 1,
      vppPid: 4242,
      encapSource: '2001:db8::1',
      hopLimit: 64,
    });
  });

  it('on stop() lets the running pass finish, then closes the VPP session, and leaves nothing running', async () => {
    const a = makeAgent({ driftIntervalMs: 20 });
    const order: string[] = [];
    client.onClose = () => order.push('vpp-closed');
    a.on('reconcile', () => order.push('pass-finished'));
    await a.start();
    reconciler.hold();
    const started = reconciler.nextPassStarted();
    client.handshake();
    await started;
    const followUp = a.reconcileNow();

    const stopping = a.stop();
    assert.equal(reconciler.passes[0]?.opts.shouldStop?.(), true, 'the pass is told to stop after its batch');
    assert.deepEqual(a.readiness().reasons.slice(0, 1), ['the agent is shutting down']);
    assert.equal(client.closed, 0, 'VPP stays connected while the pass finishes its batch');

    reconciler.release();
    await stopping;
    // The session was closed after the held pass finished, not while it ran.
    assert.deepEqual(order, ['pass-finished', 'vpp-closed']);
    assert.equal(reconciler.passes.length, 1, 'the queued follow-up does not run');
    assert.equal((await followUp).outcome, 'skipped');
    assert.equal(a.status().phase, 'stopped');
    assert.equal(client.state, 'closed');
    // A closed fs.watch handle is released in the event loop's close phase, after the turn that
    // closed it: let that turn end (no time passes; a live timer or watch stays listed).
    const leftovers = async (): Promise<string[]> => {
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
      return process.getActiveResourcesInfo().filter((r) => r === 'Timeout' || r === 'FSEventWrap');
    };
    assert.deepEqual(await leftovers(), [], 'no timers or watches left behind');
  });
});
