/**
 * An event stream from VPP as an async iterable. The buffer is bounded: a consumer that falls
 * behind loses the buffered events and receives one `resync` item instead, so it knows to re-read
 * state rather than act on a silently incomplete history. A reconnect also yields `resync`,
 * because VPP forgets subscriptions (and usually all state) when it restarts.
 */
export type SubscriptionItem<E> =
  | { readonly type: 'event'; readonly event: E }
  | { readonly type: 'resync'; readonly reason: 'overflow' | 'reconnected' };

export class EventSubscription<E> implements AsyncIterable<SubscriptionItem<E>> {
  readonly #buffer: SubscriptionItem<E>[] = [];
  readonly #capacity: number;
  readonly #onClose: () => Promise<void>;
  #waiter: ((r: IteratorResult<SubscriptionItem<E>>) => void) | undefined;
  #closed = false;
  #overflows = 0;

  constructor(capacity: number, onClose: () => Promise<void>) {
    this.#capacity = capacity;
    this.#onClose = onClose;
  }

  /** How many times the buffer overflowed. */
  get overflows(): number {
    return this.#overflows;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** @internal called by the client. */
  push(item: SubscriptionItem<E>): void {
    if (this.#closed) return;
    if (this.#waiter) {
      const w = this.#waiter;
      this.#waiter = undefined;
      w({ value: item, done: false });
      return;
    }
    if (this.#buffer.length >= this.#capacity) {
      this.#overflows++;
      this.#buffer.length = 0;
      this.#buffer.push({ type: 'resync', reason: 'overflow' });
      return;
    }
    this.#buffer.push(item);
  }

  /** Stops the subscription in VPP (when connected) and ends the iteration. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.end();
    await this.#onClose();
  }

  /** @internal ends iteration without talking to VPP (client closed). */
  end(): void {
    this.#closed = true;
    this.#buffer.length = 0;
    if (this.#waiter) {
      const w = this.#waiter;
      this.#waiter = undefined;
      w({ value: undefined, done: true });
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<SubscriptionItem<E>> {
    return {
      next: () => {
        const item = this.#buffer.shift();
        if (item) return Promise.resolve({ value: item, done: false });
        if (this.#closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.#waiter = resolve));
      },
      return: async () => {
        await this.close();
        return { value: undefined, done: true };
      },
    };
  }
}
