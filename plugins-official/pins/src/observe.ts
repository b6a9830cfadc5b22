import type { NewEvent } from 'factorly';
import type { Seen } from './definition.js';
import { listedDigest, type PinState } from './fold.js';

/** A tool as one listing showed it: for everyone, or (`sessionId`) in one session's own listing. */
export interface Sighting extends Seen {
  sessionId?: string;
}

/**
 * The events that bring the log's pins up to what a listing shows. Nothing when the log already
 * says it (the usual case, so a listing costs no write): a tool seen first is pinned (the owner's
 * config pins again what it changed); a definition that differs from the pin is held where it was
 * listed; a listing that shows the pin again where the tool was held releases it. A new tool of a
 * source that pins strictly is held, unless the source has no pin yet (its first listing is trusted).
 */
export function observations(sightings: readonly Sighting[], state: PinState): NewEvent[] {
  const events: NewEvent[] = [];
  for (const seen of sightings) {
    if (seen.mode === false) continue;
    const event = observation(seen, state);
    if (event) events.push(event);
  }
  return events;
}

function observation(seen: Sighting, state: PinState): NewEvent | undefined {
  const { tool, digest, definition, source, sessionId } = seen;
  const record = state.tools.get(tool);
  const pinned = { tool, digest, definition, source };
  if (seen.owned) {
    if (record?.pin?.digest === digest && record.listings.size === 0) return undefined;
    return { type: 'tool.pinned', data: { ...pinned, cause: record ? 'config' : 'first_seen' } };
  }
  const listed = listedDigest(record, sessionId);
  if (!record?.pin) {
    if (seen.mode !== 'strict' || !state.sources.has(source))
      return { type: 'tool.pinned', data: { ...pinned, cause: 'first_seen' } };
    if (listed === digest) return undefined;
    return { type: 'tool.held', data: { ...pinned, cause: 'new_tool', ...scope(sessionId) } };
  }
  if (listed === digest) return undefined;
  if (digest === record.pin.digest) return { type: 'tool.released', data: { tool, digest, ...scope(sessionId) } };
  return {
    type: 'tool.held',
    data: { ...pinned, pinned: record.pin.digest, cause: 'definition_changed', ...scope(sessionId) },
  };
}

/**
 * Whether a listing holds the tool back: from what it shows, so a change holds it before it is
 * recorded; every guarded tool while the pins are not read yet (`state` undefined).
 */
export function holds(seen: Seen, state: PinState | undefined): boolean {
  if (seen.mode === false || seen.owned) return false;
  if (!state) return true;
  const record = state.tools.get(seen.tool);
  if (!record?.pin) return seen.mode === 'strict' && state.sources.has(seen.source);
  return record.pin.digest !== seen.digest;
}

function scope(sessionId: string | undefined): { sessionId?: string } {
  return sessionId === undefined ? {} : { sessionId };
}
