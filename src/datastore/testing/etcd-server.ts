/**
 * A real etcd (Debian's etcd-server) for tests: a free loopback port, a temporary data dir,
 * ready when its /health says so. Stop and start again keep the data dir, as a restarted
 * member would.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { setTimeout as delay } from 'node:timers/promises';

export const ETCD_BINARY = process.env.VPPNET_TEST_ETCD ?? '/usr/bin/etcd';

export interface EtcdServerTls {
  /** Files: the server's certificate and key, and the CA clients must present certificates of. */
  readonly certFile: string;
  readonly keyFile: string;
  readonly caFile: string;
  /** PEM of the CA, for the health probe. */
  readonly ca: Buffer;
  readonly clientCert: Buffer;
  readonly clientKey: Buffer;
}

/** How often start() tries other ports when etcd finds one taken. */
const START_ATTEMPTS = 5;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export class EtcdServer {
  readonly dataDir: string;
  #child: ChildProcess | undefined;
  #exited: Promise<void> | undefined;
  /** --initial-cluster-token when a new cluster replaced the first (etcd's default before). */
  #clusterToken: string | undefined;

  readonly #extraArgs: readonly string[];

  private constructor(
    readonly clientPort: number,
    readonly peerPort: number,
    readonly tls: EtcdServerTls | undefined,
    extraArgs: readonly string[],
    dataDirParent: string,
  ) {
    this.#extraArgs = extraArgs;
    this.dataDir = mkdtempSync(path.join(dataDirParent, 'vppnet-etcd-'));
  }

  /**
   * `extraArgs` go to etcd after the test's own, e.g. a benchmark's larger `--max-txn-ops`,
   * `--max-request-bytes` and `--quota-backend-bytes` for loading a large fleet quickly.
   * `dataDirParent` (default the temp dir) e.g. /dev/shm: etcd's speed is its disk's fsync.
   */
  static async start(
    options: {
      tls?: EtcdServerTls;
      extraArgs?: readonly string[];
      dataDirParent?: string;
      /** Where the ports come from (default freePort); a test hands out a taken one. */
      pickPort?: () => Promise<number>;
    } = {},
  ): Promise<EtcdServer> {
    const pickPort = options.pickPort ?? freePort;
    // A port freePort() found free can be taken before etcd binds it: by another process, or by
    // an outgoing connection's ephemeral port (the same range). Such a start is tried again on
    // other ports; any other failure is the caller's.
    for (let attempt = 1; ; attempt++) {
      const clientPort = await pickPort();
      let peerPort = await pickPort();
      while (peerPort === clientPort) peerPort = await pickPort();
      const server = new EtcdServer(
        clientPort,
        peerPort,
        options.tls,
        options.extraArgs ?? [],
        options.dataDirParent ?? tmpdir(),
      );
      try {
        await server.resume();
        return server;
      } catch (err) {
        await server.stop();
        if (attempt >= START_ATTEMPTS || !/address already in use/.test((err as Error).message)) throw err;
      }
    }
  }

  get endpoint(): string {
    return `${this.tls ? 'https' : 'http'}://127.0.0.1:${this.clientPort}`;
  }

  /** Starts etcd (again) on the same port and data dir, and waits until it is healthy. */
  async resume(): Promise<void> {
    const url = this.endpoint;
    const args = [
      '--name',
      'test',
      '--data-dir',
      this.dataDir,
      '--listen-client-urls',
      url,
      '--advertise-client-urls',
      url,
      '--listen-peer-urls',
      `http://127.0.0.1:${this.peerPort}`,
      '--initial-advertise-peer-urls',
      `http://127.0.0.1:${this.peerPort}`,
      '--initial-cluster',
      `test=http://127.0.0.1:${this.peerPort}`,
      ...(this.#clusterToken !== undefined ? ['--initial-cluster-token', this.#clusterToken] : []),
      '--log-level',
      'error',
      ...(this.tls
        ? [
            '--cert-file',
            this.tls.certFile,
            '--key-file',
            this.tls.keyFile,
            '--trusted-ca-file',
            this.tls.caFile,
            '--client-cert-auth',
          ]
        : []),
      ...this.#extraArgs,
    ];
    const child = spawn(ETCD_BINARY, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    this.#child = child;
    let exited = false;
    this.#exited = new Promise((resolve) =>
      child.once('exit', () => {
        exited = true;
        resolve();
      }),
    );
    const failed = this.#exited.then(() => {
      throw new Error(`etcd exited before it was ready: ${stderr}`);
    });
    await Promise.race([this.#waitHealthy(() => exited), failed]);
  }

  /**
   * Resolves once etcd answers healthy; stops asking once `gone` says it exited (the race in
   * resume() has then failed with etcd's own words).
   */
  async #waitHealthy(gone: () => boolean): Promise<void> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (gone()) throw new Error('etcd exited before it was healthy');
      if (await this.#healthy()) return;
      if (Date.now() > deadline) throw new Error('etcd did not become healthy within 20 s');
      await delay(25);
    }
  }

  #healthy(): Promise<boolean> {
    return new Promise((resolve) => {
      const opts = {
        host: '127.0.0.1',
        port: this.clientPort,
        path: '/health',
        timeout: 1000,
        ...(this.tls && { ca: this.tls.ca, cert: this.tls.clientCert, key: this.tls.clientKey }),
      };
      const req = (this.tls ? httpsRequest : httpRequest)(opts, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve(res.statusCode === 200 && body.includes('"true"')));
      });
      req.on('error', () => resolve(false));
      req.on('timeout', () => req.destroy());
      req.end();
    });
  }

  /** etcd's process id while it runs (for its CPU and memory). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** etcdctl's snapshot of the running member into `file` (plain http only). */
  saveSnapshot(file: string): void {
    execFileSync('etcdctl', ['--endpoints', this.endpoint, 'snapshot', 'save', file], {
      env: { ...process.env, ETCDCTL_API: '3' },
      stdio: 'pipe',
    });
  }

  /**
   * The member restored from a snapshot, as an operator recovers from a backup: killed, its data
   * dir replaced by `etcdctl snapshot restore` (same name, peer URL and cluster token), started
   * again on the same port. Its revision is the snapshot's, behind what clients saw since.
   */
  async restoreSnapshot(file: string): Promise<void> {
    await this.kill();
    rmSync(this.dataDir, { recursive: true, force: true });
    const peer = `http://127.0.0.1:${this.peerPort}`;
    execFileSync(
      'etcdctl',
      [
        'snapshot',
        'restore',
        file,
        '--data-dir',
        this.dataDir,
        '--name',
        'test',
        '--initial-cluster',
        `test=${peer}`,
        '--initial-advertise-peer-urls',
        peer,
      ],
      { env: { ...process.env, ETCDCTL_API: '3' }, stdio: 'pipe' },
    );
    await this.resume();
  }

  /**
   * Another cluster on the same port: killed, its data dir emptied, started with another cluster
   * token (so another cluster id), at revision 1.
   */
  async replaceWithNewCluster(token: string): Promise<void> {
    await this.kill();
    rmSync(this.dataDir, { recursive: true, force: true });
    this.#clusterToken = token;
    await this.resume();
  }

  /** SIGKILL, as a crashed member; the data dir stays. */
  async kill(): Promise<void> {
    this.#child?.kill('SIGKILL');
    await this.#exited;
    this.#child = undefined;
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
