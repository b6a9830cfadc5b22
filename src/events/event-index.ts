import { createHash } from 'node:crypto';
import type { Recorded } from './envelope.js';

/**
 * A secondary index over events: the keys under which an event can be looked up (`tool` →
 * `github.search`). A log that keeps indexes (`EventLog.index`) writes an event's keys in the same
 * write as the event, and keeps a stamp of the seq its indexes cover and the code that made them, so
 * a reader can use the index up to that seq and read the (short) rest of the log itself. `keys` must
 * be a pure function of the event. A changed `version` (or code) rebuilds the index from seq 1.
 */
export interface EventIndex {
  readonly name: string;
  readonly version?: number;
  /** The module that exports it (`import.meta.url`), so `logs verify` can load it on its worker threads (see `Projection.module`). */
  readonly module?: string;
  keys(event: Recorded): readonly string[];
}

/** Answers an index lookup: seqs newest first, and how far the index reaches (events after `covered` are not in it). */
export interface IndexLookup {
  seqs: Iterable<number>;
  covered: number;
}

/** `<version>:<digest of keys>`, as for projections. */
export function indexStamp(index: EventIndex): string {
  return `${index.version ?? 1}:${createHash('sha256').update(String(index.keys)).digest('hex').slice(0, 16)}`;
}

const none: readonly string[] = [];

/** Calls by tool name (their `call.requested`). */
export const toolIndex: EventIndex = {
  module: import.meta.url,
  name: 'tool',
  keys: (event) => (event.type === 'call.requested' ? [event.data.tool] : none),
};

/** Calls by agent (their `call.requested`). */
export const agentIndex: EventIndex = {
  module: import.meta.url,
  name: 'agent',
  keys: (event) => (event.type === 'call.requested' && event.data.agentId !== undefined ? [event.data.agentId] : none),
};

const interrupted: readonly string[] = ['interrupted'];

/** Calls by how they ended (their `call.completed`, or the `call.interrupted` of one that never did). */
export const statusIndex: EventIndex = {
  module: import.meta.url,
  name: 'status',
  keys: (event) =>
    event.type === 'call.completed' ? [event.data.status] : event.type === 'call.interrupted' ? interrupted : none,
};

/** Calls by the interface they came in through (`cli`, `mcp`, `code`, `ui`; their `call.requested`). */
export const ifaceIndex: EventIndex = {
  module: import.meta.url,
  name: 'iface',
  keys: (event) => (event.type === 'call.requested' ? [event.data.iface] : none),
};

/** The indexes the audit view reads (`logs --tool/--agent/--status/--iface`, the web UI's history). */
export const AUDIT_INDEXES: readonly EventIndex[] = [toolIndex, agentIndex, statusIndex, ifaceIndex];
