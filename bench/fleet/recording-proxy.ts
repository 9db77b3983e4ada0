/**
 * A recording proxy on an agent's VPP API socket path: the agent connects to it as to VPP, and it
 * forwards every byte both ways unchanged while a FrameRecorder copies the request frames the
 * agent sends (and learns the message table from VPP's sockclnt_create_reply). bench/fleet's (a)
 * against a real VPP records a cold start through it, in a run of its own: the timed cold start
 * runs without it in the path.
 *
 * Only the first connection is recorded: vppblast replays one client's frames, under one client
 * index. `connections` says how many the agent opened, so that a recording of a cold start that
 * reconnected (frames missing) can be refused.
 */
import net from 'node:net';
import { rm } from 'node:fs/promises';
import { FrameParser } from '../../src/vpp/wire/frame.js';
import type { FrameRecorder } from '../reconcile/frame-recorder.js';

export class RecordingProxy {
  readonly #server: net.Server;
  readonly #sockets = new Set<net.Socket>();
  #connections = 0;
  #firstError: Error | undefined;

  private constructor(server: net.Server) {
    this.#server = server;
  }

  /** Listens on `listenPath`, forwarding each connection to `vppSocket`, recording into `recorder`. */
  static async listen(
    listenPath: string,
    vppSocket: string,
    recorder: FrameRecorder,
  ): Promise<RecordingProxy> {
    await rm(listenPath, { force: true });
    const server = net.createServer();
    const proxy = new RecordingProxy(server);
    server.on('connection', (client) => proxy.#accept(client, vppSocket, recorder));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(listenPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return proxy;
  }

  /** Connections accepted so far. */
  get connections(): number {
    return this.#connections;
  }

  /** The first frame the proxy could not parse (the stream was then cut), if any. */
  get error(): Error | undefined {
    return this.#firstError;
  }

  #accept(client: net.Socket, vppSocket: string, recorder: FrameRecorder): void {
    const recorded = ++this.#connections === 1;
    const vpp = net.connect(vppSocket);
    for (const s of [client, vpp]) {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    }
    // One end gone (or broken): the other goes too, as a direct connection would.
    client.on('error', () => vpp.destroy());
    vpp.on('error', () => client.destroy());
    client.on('close', () => vpp.destroy());
    vpp.on('close', () => client.destroy());
    if (recorded) {
      // Parsed beside the forwarding, which pipe() does with its backpressure: a chunk may hold
      // part of a frame, or several.
      const toVpp = new FrameParser();
      const fromVpp = new FrameParser();
      const parse = (parser: FrameParser, sink: (buf: Buffer, start: number, end: number) => void) => {
        return (chunk: Buffer): void => {
          try {
            parser.pushAt(chunk, sink);
          } catch (err) {
            this.#firstError ??= err as Error;
            client.destroy();
          }
        };
      };
      client.on(
        'data',
        parse(toVpp, (buf, start, end) => recorder.recordPayload(buf, start, end)),
      );
      vpp.on(
        'data',
        parse(fromVpp, (buf, start, end) => recorder.seeFromVpp(buf, start, end)),
      );
    }
    client.pipe(vpp);
    vpp.pipe(client);
  }

  /** Stops listening and cuts every connection. */
  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
