/**
 * A diagnostics channel with the type of what it carries: its name is spelled once, by the module
 * that publishes on it, and subscribers get that type without casting (node:diagnostics_channel
 * itself carries `unknown`). Subscribing by name with node:diagnostics_channel still works: tests
 * and other tools may.
 */
import diagnostics from 'node:diagnostics_channel';

export interface TypedChannel<T> {
  readonly name: string;
  readonly hasSubscribers: boolean;
  publish(message: T): void;
  subscribe(listener: (message: T) => void): void;
  unsubscribe(listener: (message: T) => void): void;
}

export function typedChannel<T>(name: string): TypedChannel<T> {
  const channel = diagnostics.channel(name);
  return {
    name,
    get hasSubscribers() {
      return channel.hasSubscribers;
    },
    publish: (message) => channel.publish(message),
    subscribe: (listener) => diagnostics.subscribe(name, listener as (message: unknown) => void),
    unsubscribe: (listener) => void diagnostics.unsubscribe(name, listener as (message: unknown) => void),
  };
}
