/**
 * The servers of the agent's local API (src/agent-api): HTTP/1.1 on Unix sockets, split by
 * privilege as kubelet splits its device-plugin and pod-resources sockets:
 * - `privileged`: vppnet-cni's attach, detach, check, gc and status (and the service map), on a
 *   socket of mode 0600 in a directory of mode 0700 that the agent owns and no pod mounts: the
 *   CNI plugin runs as root on the host, and whoever can attach can put links into namespaces;
 * - `service-map`: GET /v1/service-map alone, on a socket of mode 0666 in a directory the service
 *   pods mount read-only; every other route answers 403 with code 104 and does nothing.
 * Every error answer is {code, msg, details?} with the CNI code the runtime should see. Built from
 * injected operations, so the agent runtime decides when it listens and tests need no VPP.
 */
import { mkdir, chmod, unlink, lstat } from 'node:fs/promises';
import { connect } from 'node:net';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { dirname } from 'node:path';
import { AgentApiError, AgentErrorCode, httpStatusOf } from '../agent-api/errors.js';
import { reply } from '../agent-api/json-reply.js';
import {
  AGENT_API_PATHS,
  attachmentKeyFromQuery,
  SERVICE_MAP_PATH,
  type AgentErrorBody,
  type AttachRequest,
  type AttachResponse,
  type AttachmentKey,
  type AttachmentState,
  type GcRequest,
  type StatusResponse,
} from '../agent-api/protocol.js';
import type { ServiceMapEntry } from '../agent-api/service-map.js';
import type { VppApi } from '../vpp/client/vpp-api.js';

/** An attach request is a few hundred bytes; nothing a CNI plugin sends comes near this. */
export const MAX_BODY_BYTES = 64 * 1024;
/**
 * Concurrent connections per socket: the kubelet runs a handful of CNI calls at once, and a
 * service pod needs one; a peer opening thousands must not exhaust the agent's descriptors.
 */
export const MAX_CONNECTIONS = 64;
/** A request must arrive whole within this: a peer trickling bytes holds no connection for long. */
export const REQUEST_TIMEOUT_MS = 10_000;
/** How often overdue requests are looked for: the bound above holds to within this. */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

export type LocalApiScope = 'privileged' | 'service-map';

const SCOPE_MODES: Record<LocalApiScope, { readonly dir: number; readonly socket: number }> = {
  privileged: { dir: 0o700, socket: 0o600 },
  'service-map': { dir: 0o755, socket: 0o666 },
};

/** The attachment operations the API exposes (AttachmentManager). */
export interface AttachmentOperations {
  attach(request: AttachRequest): Promise<AttachResponse>;
  detach(key: AttachmentKey): Promise<void>;
  check(key: AttachmentKey): Promise<AttachmentState>;
  gc(request: GcRequest): Promise<void>;
}

export interface LocalApiDeps {
  readonly attachments: AttachmentOperations;
  /** Whether VPP is connected: STATUS answers 50 while it is not. */
  readonly vppConnected: () => boolean;
  readonly serviceMap: () => readonly ServiceMapEntry[];
}

/** vppConnected for a VPP client. */
export function vppConnectedOf(client: VppApi): () => boolean {
  return () => client.state === 'ready';
}

class HttpAnswer extends Error {
  readonly status: number;
  readonly body: AgentErrorBody;
  constructor(status: number, body: AgentErrorBody) {
    super(body.msg);
    this.status = status;
    this.body = body;
  }
}

export class LocalApiServer {
  readonly #deps: LocalApiDeps;
  readonly #scope: LocalApiScope;
  #server: Server | undefined;
  #connections = 0;
  #idleWaiters: (() => void)[] = [];

  constructor(deps: LocalApiDeps, scope: LocalApiScope = 'privileged') {
    this.#deps = deps;
    this.#scope = scope;
  }

  get scope(): LocalApiScope {
    return this.#scope;
  }

  /** The request handler, for mounting on a server of the caller's. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    void this.#handle(req, res);
  };

  /**
   * Listens on `socketPath`: makes sure of its directory (privileged: owned by the agent, mode
   * 0700, no symlink), replaces a stale socket left by a dead agent (but not a live one), and gives
   * the socket its scope's mode from the moment it exists.
   */
  async listen(socketPath: string): Promise<void> {
    const modes = SCOPE_MODES[this.#scope];
    await prepareDirectory(dirname(socketPath), modes.dir, this.#scope === 'privileged');
    await removeStaleSocket(socketPath);
    const server = createServer(
      {
        requestTimeout: REQUEST_TIMEOUT_MS,
        headersTimeout: REQUEST_TIMEOUT_MS,
        // Node looks for overdue requests every 30 s by default: a silent peer kept its connection
        // for up to 40 s, not 10.
        connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
      },
      this.handle,
    );
    // Counted here rather than with server.maxConnections, so that tests can wait for idleness.
    server.on('connection', (socket) => {
      if (this.#connections >= MAX_CONNECTIONS) {
        socket.destroy();
        return;
      }
      this.#connections++;
      socket.once('close', () => {
        this.#connections--;
        if (this.#connections === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // bind() happens inside listen(): a tight umask closes the window before the chmod below.
      const previous = process.umask(0o177);
      try {
        server.listen(socketPath, () => {
          server.off('error', reject);
          resolve();
        });
      } finally {
        process.umask(previous);
      }
    });
    await chmod(socketPath, modes.socket);
    this.#server = server;
  }

  /** Resolves once no connection is open (at once when none is). */
  idle(): Promise<void> {
    if (this.#connections === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  close(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://agent');
    try {
      const route = `${req.method ?? ''} ${url.pathname}`;
      // Before the body is read: a pod's request to attach is refused without looking at it.
      if (this.#scope === 'service-map' && route !== `GET ${SERVICE_MAP_PATH}`)
        throw new HttpAnswer(403, {
          code: AgentErrorCode.NOT_ON_THIS_SOCKET,
          msg: `${route} is not served on the service-map socket: it serves GET ${SERVICE_MAP_PATH} only`,
        });
      // Declared too large: refused before a byte of it is read.
      const declared = Number(req.headers['content-length'] ?? 0);
      if (declared > MAX_BODY_BYTES) {
        res.setHeader('connection', 'close');
        throw rejected(`request body larger than ${MAX_BODY_BYTES} bytes`);
      }
      const body = await readJsonBody(req);

      const key = (): AttachmentKey => {
        const k = attachmentKeyFromQuery(url.searchParams);
        if (!k) throw rejected('the query needs a containerId (a CNI container ID) and an ifname');
        return k;
      };
      switch (route) {
        case `POST ${AGENT_API_PATHS.attachments}`:
          return reply(res, 200, await this.#deps.attachments.attach(body as AttachRequest));
        case `DELETE ${AGENT_API_PATHS.attachments}`:
          await this.#deps.attachments.detach(key());
          return reply(res, 204);
        case `GET ${AGENT_API_PATHS.attachments}`:
          return reply(res, 200, await this.#deps.attachments.check(key()));
        case `POST ${AGENT_API_PATHS.gc}`:
          await this.#deps.attachments.gc(validateGcRequest(body));
          return reply(res, 204);
        case `GET ${AGENT_API_PATHS.status}`: {
          if (!this.#deps.vppConnected()) {
            throw new HttpAnswer(503, {
              code: AgentErrorCode.PLUGIN_NOT_AVAILABLE,
              msg: 'vppnet-agent is not connected to VPP',
            });
          }
          const status: StatusResponse = { vpp: 'connected' };
          return reply(res, 200, status);
        }
        case `GET ${SERVICE_MAP_PATH}`:
          return reply(res, 200, this.#deps.serviceMap());
        default: {
          const known = [...Object.values(AGENT_API_PATHS), SERVICE_MAP_PATH] as string[];
          if (known.includes(url.pathname)) {
            throw new HttpAnswer(405, {
              code: AgentErrorCode.INVALID_NETWORK_CONFIG,
              msg: `${req.method ?? ''} is not allowed on ${url.pathname}`,
            });
          }
          throw new HttpAnswer(404, { code: AgentErrorCode.INTERNAL, msg: `no route ${route}` });
        }
      }
    } catch (err) {
      if (err instanceof HttpAnswer) return reply(res, err.status, err.body);
      const e =
        err instanceof AgentApiError
          ? err
          : new AgentApiError(AgentErrorCode.INTERNAL, err instanceof Error ? err.message : String(err));
      return reply(res, httpStatusOf(e.code), e.toBody());
    }
  }
}

function rejected(msg: string, details?: string): AgentApiError {
  return new AgentApiError(AgentErrorCode.INVALID_NETWORK_CONFIG, msg, details);
}

function validateGcRequest(body: unknown): GcRequest {
  if (typeof body !== 'object' || body === null)
    throw rejected('invalid GC request', 'the body must be a JSON object');
  const b = body as Record<string, unknown>;
  if (typeof b.network !== 'string' || b.network === '')
    throw rejected('invalid GC request', 'network must be a non-empty string');
  if (!Array.isArray(b.validAttachments))
    throw rejected('invalid GC request', 'validAttachments must be a list');
  const validAttachments = (b.validAttachments as unknown[]).map((v, i) => {
    const o = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
    if (typeof o.containerID !== 'string' || typeof o.ifname !== 'string') {
      throw rejected('invalid GC request', `validAttachments[${i}] needs containerID and ifname`);
    }
    return { containerID: o.containerID, ifname: o.ifname };
  });
  return { network: b.network, validAttachments };
}

async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw rejected(`request body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new AgentApiError(
      AgentErrorCode.DECODING_FAILURE,
      'request body is not JSON',
      (err as Error).message,
    );
  }
}

/**
 * Creates `dir` (and its parents) when missing. For the privileged socket the directory itself is
 * the access control: it must be a real directory, not a symlink someone planted, owned by the
 * agent's user, and it is set to `mode` whatever it was.
 */
async function prepareDirectory(dir: string, mode: number, ownOnly: boolean): Promise<void> {
  await mkdir(dir, { recursive: true, mode });
  if (!ownOnly) return;
  const stat = await lstat(dir);
  if (!stat.isDirectory())
    throw new Error(`${dir} is not a directory (a symlink?): refusing to serve the privileged API there`);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid)
    throw new Error(
      `${dir} belongs to uid ${stat.uid}, not to the agent (uid ${uid}): refusing to serve the privileged API there`,
    );
  if ((stat.mode & 0o777) !== mode) await chmod(dir, mode);
}

/** Removes a socket file nobody listens on; refuses to take over a live agent's socket. */
async function removeStaleSocket(path: string): Promise<void> {
  const stat = await lstat(path).catch(() => undefined);
  if (!stat) return;
  if (!stat.isSocket()) throw new Error(`${path} exists and is not a socket`);
  const alive = await new Promise<boolean>((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
  if (alive) throw new Error(`another process is serving ${path}`);
  await unlink(path);
}
