/**
 * For the CLI's tests against a real etcd: the CLI's main run in-process with its output
 * captured, and an etcd of the test's own with a temporary directory and the environment that
 * points the CLI at it under a prefix.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { EtcdServer } from '../../datastore/testing/etcd-server.js';
import { main } from '../vppnet.js';

export async function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  const out = new PassThrough();
  let text = '';
  out.on('data', (d: Buffer) => (text += d.toString()));
  const code = await main(args, out, env);
  return { code, out: text };
}

export interface CliEtcd {
  readonly server: EtcdServer;
  /** A temporary directory for the test's files. */
  readonly dir: string;
  /** VPPNET_ETCD_ENDPOINTS and VPPNET_DATASTORE_PREFIX for this etcd and prefix. */
  readonly env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

export async function startCliEtcd(prefix: string): Promise<CliEtcd> {
  const server = await EtcdServer.start();
  const dir = mkdtempSync(path.join(tmpdir(), 'vppnet-cli-etcd-'));
  return {
    server,
    dir,
    env: { VPPNET_ETCD_ENDPOINTS: server.endpoint, VPPNET_DATASTORE_PREFIX: prefix },
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
