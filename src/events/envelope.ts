import type { EventMap, EventType } from './catalog.js';

declare const PLUGIN_EVENT: unique symbol;

/**
 * An event type a plugin registered, as `registrar.eventType<D>()` returns it: the string
 * `<plugin-id>.<name>`, marked with the shape `D` of its data so an append of it type-checks (a
 * plain string does not: only a registered type can be appended, and the log refuses any other).
 */
export type PluginEventType<D = unknown> = string & { readonly [PLUGIN_EVENT]: D };

/** A plugin's event on its way to `EventLog.append`. */
export interface PluginNewEvent<D = unknown> {
  id?: string;
  type: PluginEventType<D>;
  data: D;
}

/** One of factorly's own events on its way to `EventLog.append`. */
export type CatalogNewEvent<T extends EventType = EventType> = T extends EventType
  ? { id?: string; type: T; data: EventMap[T] }
  : never;

/**
 * What a writer hands to `EventLog.append`: one of factorly's events, or a plugin's of a type it
 * registered. `id` makes the append idempotent; it is generated when absent.
 */
export type NewEvent<T extends EventType = EventType> =
  | CatalogNewEvent<T>
  // A plugin's event is one of "any event", never one of a type named.
  | ([EventType] extends [T] ? PluginNewEvent : never);

/** Narrow an event on its way to the log to one of factorly's types. */
export function isNewOfType<T extends EventType>(event: NewEvent, type: T): event is CatalogNewEvent<T> {
  return event.type === type;
}

/**
 * An event as stored. `hash = sha256(prevHash ‖ canonical JSON of the envelope without hash)`;
 * the first event's `prevHash` is 64 zeros.
 */
export type Recorded<T extends EventType = EventType> = T extends EventType
  ? {
      seq: number;
      id: string;
      type: T;
      v: number;
      /** ISO-8601 time of the append. */
      at: string;
      data: EventMap[T];
      prevHash: string;
      hash: string;
    }
  : never;

export const GENESIS_HASH = '0'.repeat(64);

/** Narrow a recorded event to one type. */
export function isType<T extends EventType>(event: Recorded, type: T): event is Recorded<T> {
  return event.type === type;
}
