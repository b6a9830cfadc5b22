import type { Recorded } from './envelope.js';

/** Turns the data of one (type, v) into the data of version v + 1. */
export type Upcaster = (data: unknown) => unknown;

/**
 * Old events are never rewritten: readers upcast them step by step to the version they
 * understand. Keys are `"<type>@<v>"`.
 */
export const UPCASTERS: Readonly<Record<string, Upcaster>> = {
  // v2 added the optional `facts`; a v1 decision had none.
  'shadow.decided@1': (data) => data,
  // call.requested v2 added the optional `engine` of a script, v3 the optional `writer`; older requests have none.
  'call.requested@1': (data) => data,
  'call.requested@2': (data) => data,
  // v2 added the optional `writer` (and `reason` on session.closed, `configSha` on config.loaded); a v1 event has none.
  'session.opened@1': (data) => data,
  // session.opened v3 added the optional `principal`; an older session had none (no token named its agent).
  'session.opened@2': (data) => data,
  'session.closed@1': (data) => data,
  'config.loaded@1': (data) => data,
  // v2 added the optional `verifierKey`; a v1 writer announced none.
  'writer.started@1': (data) => data,
  // confirm.requested v2 added the optional `timeoutMs`; a v1 request named no deadline.
  'confirm.requested@1': (data) => data,
  // call.params_capped v2 added the optional `omitted`; a v1 event left no param out.
  'call.params_capped@1': (data) => data,
  // confirm.answered v2 added the optional `standing`; a v1 answer approved one call.
  'confirm.answered@1': (data) => data,
};

export function createUpcast(table: Readonly<Record<string, Upcaster>>): (event: Recorded) => Recorded {
  return (event) => {
    let current = event;
    for (let step = table[`${current.type}@${current.v}`]; step; step = table[`${current.type}@${current.v}`]) {
      current = { ...current, v: current.v + 1, data: step(current.data) } as Recorded;
    }
    return current;
  };
}

/** factorly's table and the plugins' event types' (see plugin-event-types.ts). */
const LIVE: Record<string, Upcaster> = { ...UPCASTERS };

/** Adds the upcasters of a plugin's event type. */
export function addUpcasters(entries: Readonly<Record<string, Upcaster>>): void {
  Object.assign(LIVE, entries);
}

/** Upcasts with factorly's own table and the plugins'. The hash stays the stored one: verification uses the stored form. */
export const upcast = createUpcast(LIVE);
