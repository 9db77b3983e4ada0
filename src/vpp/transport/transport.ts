/**
 * What the client core needs of a transport: one connection that moves whole frames. The Unix
 * socket transport is the one in production; tests may hand the core an in-memory one.
 */
import type { FrameSink } from '../wire/frame.js';
import type { TransportEvents } from './unix-socket-transport.js';

export type { TransportEvents } from './unix-socket-transport.js';

export interface VppTransport {
  /** Opens the connection once; rejects with the reason it could not (ENOENT, a timeout, ...). */
  connect(): Promise<void>;
  /** Queues one whole frame (header and payload); false when the caller should wait for 'drain'. */
  send(frame: Buffer): boolean;
  /**
   * Optional: as send(), for the frame at `buf[start, end)`, which the transport copies before
   * returning, so the caller may encode its next frame into the same memory. The client encodes
   * into one scratch buffer when the transport has this, and allocates a frame per send when not.
   */
  sendFrom?(buf: Buffer, start: number, end: number): boolean;
  /** Ends the connection after what was sent; resolves once it is closed. */
  close(): Promise<void>;
  /** Tears the connection down at once; 'close' follows with `error`. */
  destroy(error?: Error): void;
  on<E extends keyof TransportEvents>(event: E, listener: TransportEvents[E]): this;
  /**
   * Optional: sets the one listener that gets every inbound frame in place, as the range of the
   * buffer holding its payload (the socket's chunk when the frame lies whole in it), with no
   * Buffer or event per frame. Same lifetime and no-throw rules as 'frame', which still fires for
   * its own listeners. The client core uses this when the transport has it.
   */
  onFrameAt?(sink: FrameSink): this;
}

export interface TransportTarget {
  /** Path of VPP's API socket. */
  readonly path: string;
  readonly connectTimeoutMs: number;
}

/** Makes the transport for one connection attempt; a reconnect makes a new one. */
export type TransportFactory = (target: TransportTarget) => VppTransport;
