/**
 * A stand-in for vppnet-agent's local API (src/agent-api/protocol.ts) on a real Unix socket, for tests of
 * the plugin and its client. It records every call; each route's behaviour can be replaced, e.g. by
 * one that really creates links in a netns. By default it keeps attachments in memory.
 */
import { chmod } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

import {
  AGENT_API_PATHS,
  attachmentKeyFromQuery,
  type AgentErrorBody,
  type AttachRequest,
  type AttachResponse,
  type AttachmentKey,
  type AttachmentState,
  type GcRequest,
  type StatusResponse,
} from '../../agent-api/protocol.js';
import { reply } from '../../agent-api/json-reply.js';
import { CniError, CniErrorCode } from '../errors.js';

export interface RecordedAgentCall {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/** Thrown by a behaviour to answer with a given HTTP status and error body. */
export class FakeAgentReply extends Error {
  readonly status: number;
  readonly body: AgentErrorBody;
  constructor(status: number, body: AgentErrorBody) {
    super(body.msg);
    this.status = status;
    this.body = body;
  }
}

type MaybePromise<T> = T | Promise<T>;

export interface FakeAgentBehaviour {
  attach(request: AttachRequest): MaybePromise<AttachResponse>;
  detach(key: AttachmentKey): MaybePromise<void>;
  getAttachment(key: AttachmentKey): MaybePromise<AttachmentState>;
  gc(request: GcRequest): MaybePromise<void>;
  status(): MaybePromise<StatusResponse>;
}

export class FakeAgentServer {
  readonly socketPath: string;
  readonly calls: RecordedAgentCall[] = [];
  /** Attachments made by the default behaviour, keyed by `containerId/ifname`. */
  readonly attachments = new Map<string, AttachRequest>();
  readonly #behaviour: FakeAgentBehaviour;
  readonly #server: Server;

  private constructor(socketPath: string, behaviour: Partial<FakeAgentBehaviour>) {
    this.socketPath = socketPath;
    this.#behaviour = { ...this.#defaultBehaviour(), ...behaviour };
    this.#server = createServer((req, res) => void this.#handle(req, res));
  }

  static async start(
    socketPath: string,
    behaviour: Partial<FakeAgentBehaviour> = {},
  ): Promise<FakeAgentServer> {
    const agent = new FakeAgentServer(socketPath, behaviour);
    await new Promise<void>((resolve, reject) => {
      agent.#server.once('error', reject);
      agent.#server.listen(socketPath, () => resolve());
    });
    await chmod(socketPath, 0o600);
    return agent;
  }

  /** Calls of one route, e.g. callsTo('DELETE', '/v1/attachments'). */
  callsTo(method: string, path: string): RecordedAgentCall[] {
    return this.calls.filter((call) => call.method === method && call.path === path);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://agent');
    try {
      const text = await readBody(req);
      const body: unknown = text === '' ? undefined : JSON.parse(text);
      this.calls.push({
        method: req.method ?? '',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        body,
      });
      const route = `${req.method} ${url.pathname}`;
      const key = attachmentKeyFromQuery(url.searchParams);
      switch (route) {
        case `POST ${AGENT_API_PATHS.attachments}`:
          return reply(res, 200, await this.#behaviour.attach(body as AttachRequest));
        case `DELETE ${AGENT_API_PATHS.attachments}`:
          if (key === undefined) throw badRequest('containerId and ifname are required');
          await this.#behaviour.detach(key);
          return reply(res, 204);
        case `GET ${AGENT_API_PATHS.attachments}`:
          if (key === undefined) throw badRequest('containerId and ifname are required');
          return reply(res, 200, await this.#behaviour.getAttachment(key));
        case `POST ${AGENT_API_PATHS.gc}`:
          await this.#behaviour.gc(body as GcRequest);
          return reply(res, 204);
        case `GET ${AGENT_API_PATHS.status}`:
          return reply(res, 200, await this.#behaviour.status());
        default:
          throw new FakeAgentReply(404, { code: CniErrorCode.INTERNAL, msg: `no route ${route}` });
      }
    } catch (err) {
      if (err instanceof FakeAgentReply) return reply(res, err.status, err.body);
      if (err instanceof CniError) {
        return reply(res, 500, {
          code: err.code,
          msg: err.msg,
          ...(err.details !== undefined && { details: err.details }),
        });
      }
      return reply(res, 500, {
        code: CniErrorCode.INTERNAL,
        msg: err instanceof Error ? err.message : String(err),
      });
    }
  }

  #defaultBehaviour(): FakeAgentBehaviour {
    const keyOf = (containerId: string, ifname: string): string => `${containerId}/${ifname}`;
    const macOf = (n: number): string => `02:00:00:00:00:${(n & 0xff).toString(16).padStart(2, '0')}`;
    return {
      attach: (request) => {
        this.attachments.set(keyOf(request.containerId, request.ifname), request);
        return {
          interfaces: [
            { name: `host-${request.ifname}`, mac: macOf(1) },
            { name: request.ifname, mac: request.mac ?? macOf(2), sandbox: request.netns },
          ],
          mode: 'veth',
        };
      },
      detach: (key) => {
        this.attachments.delete(keyOf(key.containerId, key.ifname));
      },
      getAttachment: (key) => {
        const request = this.attachments.get(keyOf(key.containerId, key.ifname));
        if (request === undefined) {
          throw new FakeAgentReply(404, {
            code: CniErrorCode.ATTACHMENT_NOT_FOUND,
            msg: 'no such attachment',
          });
        }
        return {
          containerId: request.containerId,
          ifname: request.ifname,
          netns: request.netns,
          mode: 'veth',
          interfaces: [],
          podInterface: {
            name: request.ifname,
            mac: request.mac ?? macOf(2),
            up: true,
            addresses: request.ips.map((ip) => ip.address),
          },
        };
      },
      gc: (request) => {
        const valid = new Set(request.validAttachments.map((a) => keyOf(a.containerID, a.ifname)));
        for (const [key, attachment] of this.attachments) {
          if (attachment.network === request.network && !valid.has(key)) this.attachments.delete(key);
        }
      },
      status: () => ({ vpp: 'connected' }),
    };
  }
}

function badRequest(msg: string): FakeAgentReply {
  return new FakeAgentReply(400, { code: CniErrorCode.INVALID_NETWORK_CONFIG, msg });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
