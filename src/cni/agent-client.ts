/**
 * The plugin's client of vppnet-agent: HTTP over the agent's Unix socket. While the agent restarts
 * its socket is missing or refuses connections for a moment, so connecting is retried with backoff
 * within a bounded budget (10 s by default) before the runtime is told to try again later (code 11).
 * Only failures to connect are retried: once a request may have reached the agent it is never resent.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { createConnection } from 'node:net';

import { backoffDelayMs } from '../util/backoff.js';
import { sleep, systemTimers, type Timers } from '../util/timers.js';
import {
  AGENT_API_PATHS,
  attachmentKeyToQuery,
  type AgentInterface,
  type AttachRequest,
  type AttachResponse,
  type AttachmentKey,
  type AttachmentState,
  type GcRequest,
  type StatusResponse,
} from '../agent-api/protocol.js';
import { CniError, CniErrorCode, cniErrorFromJson } from './errors.js';
import {
  FieldProblems,
  describe,
  isRecord,
  optionalInteger,
  optionalString,
  type JsonRecord,
} from './json-fields.js';

export interface CallOptions {
  /**
   * false: a single connection attempt. For calls where waiting buys nothing: undoing a failed ADD
   * (the runtime's DEL follows anyway) and STATUS (the runtime polls it).
   */
  readonly waitForAgent?: boolean;
}

/** What the plugin needs from the agent; tests substitute fakes. */
export interface AgentApi {
  attach(request: AttachRequest): Promise<AttachResponse>;
  detach(key: AttachmentKey, options?: CallOptions): Promise<void>;
  getAttachment(key: AttachmentKey): Promise<AttachmentState>;
  gc(request: GcRequest): Promise<void>;
  status(options?: CallOptions): Promise<StatusResponse>;
}

export interface AgentClientOptions {
  readonly socketPath: string;
  /** Overall time to keep trying to connect to a missing/refusing socket. */
  readonly connectBudgetMs?: number;
  /** First pause between attempts; doubles up to maxRetryDelayMs. */
  readonly retryDelayMs?: number;
  readonly maxRetryDelayMs?: number;
  /** Per request, once connected: an ADD that programs VPP can take a while, a hung agent must not hang us. */
  readonly requestTimeoutMs?: number;
  /** The time the connect budget and the pauses between attempts are measured in; tests drive it. */
  readonly timers?: Timers;
}

/** Errors meaning "nobody is listening yet"; nothing was sent, so trying again is safe. */
const AGENT_ABSENT_CODES = new Set(['ENOENT', 'ECONNREFUSED', 'EAGAIN']);
/** Errors meaning the agent went away while handling the request: the outcome is unknown, retry later. */
const AGENT_LOST_CODES = new Set(['ECONNRESET', 'EPIPE']);
const MAX_BODY_BYTES = 1 << 20;
const REQUEST_TIMEOUT = 'VPPNET_AGENT_REQUEST_TIMEOUT';

interface HttpAnswer {
  readonly status: number;
  readonly text: string;
}

export class AgentClient implements AgentApi {
  readonly #socketPath: string;
  readonly #connectBudgetMs: number;
  readonly #retryDelayMs: number;
  readonly #maxRetryDelayMs: number;
  readonly #requestTimeoutMs: number;
  readonly #timers: Timers;

  constructor(options: AgentClientOptions) {
    this.#socketPath = options.socketPath;
    this.#connectBudgetMs = options.connectBudgetMs ?? 10_000;
    this.#retryDelayMs = options.retryDelayMs ?? 50;
    this.#maxRetryDelayMs = options.maxRetryDelayMs ?? 1_000;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
    this.#timers = options.timers ?? systemTimers;
  }

  async attach(request: AttachRequest): Promise<AttachResponse> {
    const answer = await this.#call('POST', AGENT_API_PATHS.attachments, request);
    return decodeAnswer(answer, 'attach', readAttachResponse);
  }

  async detach(key: AttachmentKey, options: CallOptions = {}): Promise<void> {
    await this.#call(
      'DELETE',
      `${AGENT_API_PATHS.attachments}?${attachmentKeyToQuery(key)}`,
      undefined,
      options,
    );
  }

  async getAttachment(key: AttachmentKey): Promise<AttachmentState> {
    const answer = await this.#call('GET', `${AGENT_API_PATHS.attachments}?${attachmentKeyToQuery(key)}`);
    return decodeAnswer(answer, 'get attachment', readAttachmentState);
  }

  async gc(request: GcRequest): Promise<void> {
    await this.#call('POST', AGENT_API_PATHS.gc, request);
  }

  async status(options: CallOptions = {}): Promise<StatusResponse> {
    const answer = await this.#call('GET', AGENT_API_PATHS.status, undefined, options);
    return decodeAnswer(answer, 'status', (body, problems) => {
      if (body['vpp'] !== 'connected')
        problems.add('vpp', `must be "connected", got ${describe(body['vpp'])}`);
      return { vpp: 'connected' };
    });
  }

  /** Sends one request, retrying only the connection; a non-2xx answer becomes the agent's CniError. */
  async #call(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<HttpAnswer> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const timers = this.#timers;
    const started = timers.now();
    const deadline = started + (options.waitForAgent === false ? 0 : this.#connectBudgetMs);
    const backoff = { initialMs: this.#retryDelayMs, maxMs: this.#maxRetryDelayMs };
    for (let attempt = 1; ; attempt++) {
      let answer: HttpAnswer;
      try {
        answer = await this.#send(method, path, payload);
      } catch (err) {
        const code = errorCode(err);
        if (code === undefined || !AGENT_ABSENT_CODES.has(code))
          throw this.#transportError(method, path, err);
        const remaining = deadline - timers.now();
        if (remaining <= 0) {
          throw new CniError(
            CniErrorCode.TRY_AGAIN_LATER,
            `vppnet-agent is not reachable at ${this.#socketPath}`,
            `${code} on ${attempt} attempt(s) over ${timers.now() - started} ms`,
          );
        }
        await sleep(timers, Math.min(backoffDelayMs(backoff, attempt - 1), remaining));
        continue;
      }
      if (answer.status >= 200 && answer.status < 300) return answer;
      throw agentError(method, path, answer);
    }
  }

  #send(method: string, path: string, payload: string | undefined): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { accept: 'application/json', connection: 'close' };
      if (payload !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(payload);
      }
      // A connection of our own, closed after the answer. Not `agent: false`: that still runs an
      // http.Agent, whose TLS server-name check compiles node:net's IPv6 pattern (~15 ms a call).
      const socketPath = this.#socketPath;
      const req = httpRequest({
        method,
        path,
        headers,
        createConnection: () => createConnection(socketPath),
      });
      req.setTimeout(this.#requestTimeoutMs, () => {
        req.destroy(
          Object.assign(new Error(`no answer within ${this.#requestTimeoutMs} ms`), {
            code: REQUEST_TIMEOUT,
          }),
        );
      });
      req.on('error', reject);
      req.on('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BODY_BYTES) {
            res.destroy(new Error(`answer larger than ${MAX_BODY_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', reject);
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      });
      req.end(payload);
    });
  }

  #transportError(method: string, path: string, err: unknown): CniError {
    const code = errorCode(err);
    const what = `${method} ${path.split('?')[0]}`;
    const message = err instanceof Error ? err.message : String(err);
    if (code === REQUEST_TIMEOUT || (code !== undefined && AGENT_LOST_CODES.has(code))) {
      return new CniError(CniErrorCode.TRY_AGAIN_LATER, `vppnet-agent did not complete ${what}`, message);
    }
    return new CniError(
      CniErrorCode.INTERNAL,
      `cannot talk to vppnet-agent at ${this.#socketPath} (${what})`,
      message,
    );
  }
}

function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * An error the agent answered in its own words (`{code, msg, details}`): it ran the request and,
 * when that failed, undid its own part before answering (src/attachments/attachment-manager.ts).
 */
export class AgentAnswerError extends CniError {}

/** The agent's `{code, msg, details}` passes through unchanged; anything else is reported raw. */
function agentError(method: string, path: string, answer: HttpAnswer): CniError {
  let decoded: unknown;
  try {
    decoded = JSON.parse(answer.text);
  } catch {
    decoded = undefined;
  }
  const answered = cniErrorFromJson(decoded);
  if (answered) return new AgentAnswerError(answered.code, answered.msg, answered.details);
  return new CniError(
    CniErrorCode.INTERNAL,
    `vppnet-agent answered HTTP ${answer.status} to ${method} ${path.split('?')[0]}`,
    answer.text.slice(0, 500),
  );
}

function decodeAnswer<T>(
  answer: HttpAnswer,
  what: string,
  read: (body: JsonRecord, problems: FieldProblems) => T,
): T {
  let decoded: unknown;
  try {
    decoded = JSON.parse(answer.text);
  } catch {
    decoded = undefined;
  }
  const problems = new FieldProblems();
  const value = isRecord(decoded) ? read(decoded, problems) : undefined;
  if (value === undefined || !problems.isEmpty) {
    throw new CniError(
      CniErrorCode.INTERNAL,
      `vppnet-agent answered ${what} with an unexpected body`,
      problems.isEmpty ? answer.text.slice(0, 500) : problems.lines.join('\n'),
    );
  }
  return value;
}

function readInterfaces(body: JsonRecord, problems: FieldProblems): AgentInterface[] {
  const list = body['interfaces'];
  if (!Array.isArray(list)) {
    problems.add('interfaces', `must be a list, got ${describe(list)}`);
    return [];
  }
  return list.flatMap((item: unknown, i): AgentInterface[] => {
    const path = `interfaces[${i}].`;
    if (!isRecord(item)) {
      problems.add(`interfaces[${i}]`, `must be an object, got ${describe(item)}`);
      return [];
    }
    const name = optionalString(item, 'name', path, problems);
    const mac = optionalString(item, 'mac', path, problems);
    const sandbox = optionalString(item, 'sandbox', path, problems);
    const mtu = optionalInteger(item, 'mtu', path, problems, { min: 0, max: 65535 });
    if (!name) problems.add(`${path}name`, 'is required');
    if (mac === undefined) problems.add(`${path}mac`, 'is required');
    return [
      {
        name: name ?? '',
        mac: mac ?? '',
        ...(sandbox !== undefined && sandbox !== '' && { sandbox }),
        ...(mtu !== undefined && { mtu }),
      },
    ];
  });
}

function readMode(body: JsonRecord, problems: FieldProblems): 'tap' | 'veth' {
  const mode = body['mode'];
  if (mode === 'tap' || mode === 'veth') return mode;
  problems.add('mode', `must be "tap" or "veth", got ${describe(mode)}`);
  return 'veth';
}

function readAttachResponse(body: JsonRecord, problems: FieldProblems): AttachResponse {
  return { interfaces: readInterfaces(body, problems), mode: readMode(body, problems) };
}

function readAttachmentState(body: JsonRecord, problems: FieldProblems): AttachmentState {
  const containerId = optionalString(body, 'containerId', '', problems) ?? '';
  const ifname = optionalString(body, 'ifname', '', problems) ?? '';
  const netns = optionalString(body, 'netns', '', problems) ?? '';
  const pod = body['podInterface'];
  let podInterface: AttachmentState['podInterface'] = { name: '', mac: '', up: false, addresses: [] };
  if (isRecord(pod)) {
    const addresses = pod['addresses'];
    if (!Array.isArray(addresses) || !addresses.every((a): a is string => typeof a === 'string')) {
      problems.add('podInterface.addresses', 'must be a list of strings');
    }
    if (typeof pod['up'] !== 'boolean') problems.add('podInterface.up', 'must be a boolean');
    podInterface = {
      name: optionalString(pod, 'name', 'podInterface.', problems) ?? '',
      mac: optionalString(pod, 'mac', 'podInterface.', problems) ?? '',
      up: pod['up'] === true,
      addresses: Array.isArray(addresses) ? (addresses as string[]) : [],
    };
  } else {
    problems.add('podInterface', `must be an object, got ${describe(pod)}`);
  }
  return {
    containerId,
    ifname,
    netns,
    mode: readMode(body, problems),
    interfaces: readInterfaces(body, problems),
    podInterface,
  };
}
