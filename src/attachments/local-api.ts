/**
 * The server of the agent's local API (src/agent-api): HTTP/1.1 on a Unix socket, mode 0600, for
 * vppnet-cni's attachments plus GET /v1/service-map for the metadata and DHCP services. Every
 * error answer is {code, msg, details?} with the CNI code the runtime should see. Built from
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

const MAX_BODY_BYTES = 1 << 20;

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
  #server: Server | undefined;

  constructor(deps: LocalApiDeps) {
    this.#deps = deps;
  }

  /** The request handler, for mounting on a server of the caller's. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    void this.#handle(req, res);
  };

  /**
   * Listens on `socketPath`: creates the parent directory, replaces a stale socket left by a dead
   * agent (but not a live one), and makes the socket 0600 from the moment it exists.
   */
  async listen(socketPath: string): Promise<void> {
    await mkdir(dirname(socketPath), { recursive: true, mode: 0o755 });
    await removeStaleSocket(socketPath);
    const server = createServer(this.handle);
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
    await chmod(socketPath, 0o600);
    this.#server = server;
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
      const body = await readJsonBody(req);
      const route = `${req.method ?? ''} ${url.pathname}`;
      const key = (): AttachmentKey => {
        const k = attachmentKeyFromQuery(url.searchParams);
        if (!k) throw rejected('containerId and ifname are required in the query');
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
