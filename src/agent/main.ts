#!/usr/bin/env node
/**
 * vppnet-agent: the per-hypervisor daemon (see agent.ts). JSON logs on stdout; flags in
 * agent-flags.ts. SIGTERM/SIGINT shut down cleanly and leave the dataplane programmed (exit 0); a
 * second signal exits at once. SIGHUP re-reads the config.
 */
import { pino } from 'pino';
import { Agent } from './agent.js';
import { agentVppClient } from './agent-vpp-client.js';
import { socketAuditReaders } from './audit-reader.js';
import { parseAgentFlags, USAGE, UsageError } from './agent-flags.js';
import { AgentHttpServer } from './http-server.js';
import {
  AGENT_CONNECTION_FLAGS,
  connectionSettingsOf,
  ConnectionSettingsError,
} from '../datastore/connection-settings.js';
import type { ConfigSource } from './config-source.js';
import { etcdSource } from './datastore-source.js';
import { FileConfigSource } from './file-config-source.js';
import { FleetConfigSource } from './fleet-config-source.js';
import { errorMessage } from './logger.js';
import { versionLine } from '../util/version.js';

/** Below Kubernetes' default 30 s grace period, so we report a stuck shutdown before SIGKILL. */
const SHUTDOWN_DEADLINE_MS = 25_000;

async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  let flags: ReturnType<typeof parseAgentFlags>;
  try {
    flags = parseAgentFlags(argv, env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`vppnet-agent: ${err.message}\n${USAGE}\n`);
    return 2;
  }
  if (flags === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (flags === 'version') {
    process.stdout.write(`${versionLine('vppnet-agent')}\n`);
    return 0;
  }

  // Synchronous writes: nothing is lost when the process exits right after a log line.
  const logger = pino(
    { name: 'vppnet-agent', level: flags.logLevel, timestamp: pino.stdTimeFunctions.isoTime },
    pino.destination({ dest: 1, sync: true }),
  );
  process.on('uncaughtException', (err) => {
    logger.fatal({ err }, 'uncaught exception');
    process.exit(1);
  });
  process.on('unhandledRejection', (reason) => {
    logger.fatal({ err: errorMessage(reason) }, 'unhandled promise rejection');
    process.exit(1);
  });

  // Where the config comes from: the file, or the datastore with the drift check's own reader.
  let source: ConfigSource;
  if (flags.etcd) {
    try {
      const settings = connectionSettingsOf(flags.etcd.connection, AGENT_CONNECTION_FLAGS, env);
      if (settings.insecureEndpoints.length > 0)
        logger.warn(
          { insecureEndpoints: settings.insecureEndpoints },
          `etcd without TLS beyond loopback (${settings.insecureEndpoints.join(', ')}), accepted by --etcd-insecure: the fleet's records cross the network in clear text and anyone on the path can rewrite them`,
        );
      source = new FleetConfigSource({
        fleet: etcdSource(settings, flags.etcd.nodeName),
        openAuditReader: socketAuditReaders(flags.vppSocketPath),
        logger,
      });
    } catch (err) {
      // A setting that cannot work (a file it cannot read, an endpoint that is no address).
      const usage = err instanceof ConnectionSettingsError ? `\n${USAGE}` : '';
      process.stderr.write(`vppnet-agent: ${errorMessage(err)}${usage}\n`);
      return 2;
    }
  } else source = new FileConfigSource({ path: flags.configPath, logger });
  // The VPP connections are opened here (the agent starts and closes them), not by the agent.
  const agent = new Agent({
    source,
    client: agentVppClient(flags.vppSocketPath),
    vppSocketPath: flags.vppSocketPath,
    stateDir: flags.stateDir,
    agentSocketPath: flags.agentSocketPath,
    ...(flags.serviceMapSocketPath !== undefined && { serviceMapSocketPath: flags.serviceMapSocketPath }),
    podNetnsDirs: flags.podNetnsDirs,
    driftIntervalMs: flags.driftIntervalMs,
    logger,
  });
  const server = new AgentHttpServer({
    host: flags.listen.host,
    port: flags.listen.port,
    status: () => agent.status(),
    metrics: agent.metrics,
    logger,
  });
  // Prometheus off the node (deploy's metrics.serviceMonitor): /metrics alone on that address.
  const metricsServer =
    flags.metricsListen === undefined
      ? undefined
      : new AgentHttpServer({
          host: flags.metricsListen.host,
          port: flags.metricsListen.port,
          status: () => agent.status(),
          metrics: agent.metrics,
          logger,
          metricsOnly: true,
        });
  const listeners: [AgentHttpServer, { host: string; port: number }, string][] = [
    [server, flags.listen, '/metrics, /healthz, /readyz and /status'],
  ];
  if (metricsServer !== undefined && flags.metricsListen !== undefined)
    listeners.push([metricsServer, flags.metricsListen, '/metrics']);
  for (const [listener, listen, what] of listeners) {
    try {
      const address = await listener.listen();
      logger.info({ address: address.address, port: address.port }, `serving ${what}`);
    } catch (err) {
      logger.fatal({ listen, err: errorMessage(err) }, `cannot listen on ${listen.host}:${listen.port}`);
      await agent.stop();
      await server.close();
      return 1;
    }
  }

  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  process.on('SIGHUP', () => {
    logger.info({}, 'SIGHUP: re-reading the config');
    void agent.reloadConfig();
  });

  let fatal: string | undefined;
  const fatalOrSignal = new Promise<NodeJS.Signals | 'fatal'>((resolve) => {
    agent.on('fatal', (reason) => {
      fatal = reason;
      resolve('fatal');
    });
    void signalled.then(resolve);
  });
  await agent.start();
  const signal = await fatalOrSignal;
  logger.info({ signal }, 'shutting down');
  const forceExit = (again: NodeJS.Signals): void => {
    logger.warn({ signal: again }, 'second signal: exiting without waiting for the shutdown');
    process.exit(1);
  };
  process.once('SIGTERM', forceExit);
  process.once('SIGINT', forceExit);
  const deadline = setTimeout(() => {
    logger.error({ deadlineMs: SHUTDOWN_DEADLINE_MS }, 'shutdown is taking too long; exiting');
    process.exit(1);
  }, SHUTDOWN_DEADLINE_MS);
  deadline.unref();

  await agent.stop();
  await server.close();
  await metricsServer?.close();
  clearTimeout(deadline);
  if (fatal !== undefined) {
    logger.fatal({ reason: fatal }, 'vppnet-agent cannot continue; exiting so that it is restarted');
    return 1;
  }
  logger.info({}, 'vppnet-agent exited cleanly');
  return 0;
}

main(process.argv.slice(2), process.env).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      `vppnet-agent: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
