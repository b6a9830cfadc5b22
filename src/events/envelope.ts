import type { EventMap, EventType } from './catalog.js';

/** What a writer hands to `EventLog.append`. `id` makes the append idempotent; it is generated when absent. */
export type NewEvent<T extends EventType = EventType> = T extends EventType
  ? { id?: string; type: T; data: EventMap[T] }
  : never;

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
