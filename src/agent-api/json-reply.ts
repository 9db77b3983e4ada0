/**
 * How the local API answers: a JSON body with its length, or an empty one. The agent's server and
 * the CNI tests' fake agent both answer with it, so the plugin is tested against the real framing.
 */
import type { ServerResponse } from 'node:http';

export function reply(res: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  res
    .writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
    .end(text);
}
