import type { PinnedDefinition, Projection, Recorded } from 'factorly';

/** The pin of one tool, as last recorded by `tool.pinned`. */
export interface Pin {
  digest: string;
  definition: PinnedDefinition;
  at: string;
  cause: 'first_seen' | 'config' | 'approved';
  by?: string;
}

/** What a listing showed where it differed from the pin (a hold), or where a session's shows the pin again (a release). */
export interface Listing {
  digest: string;
  at: string;
  /** What it showed (a release: the pin's definition then); a hold's cause. */
  definition?: PinnedDefinition;
  cause?: 'definition_changed' | 'new_tool';
}

export interface ToolRecord {
  source: string;
  pin?: Pin;
  /** By scope: `''` for everyone's listing, else the session whose own listing it was. */
  listings: Map<string, Listing>;
  /** Digests a person refused. */
  rejected: Set<string>;
}

export interface PinState {
  tools: Map<string, ToolRecord>;
  /** Sources with at least one pin: a strict source's tools that are new after these are held. */
  sources: Set<string>;
  /** The tools each open session has listings of, dropped with the session. */
  sessions: Map<string, Set<string>>;
}

/** The scope of everyone's listing. */
export const SHARED = '';

/**
 * Pins and holds as a fold over the log, so they hold across processes and `logs replay --check`
 * re-derives each decision the pins rule took. A hold is kept per scope (everyone, or one session);
 * a session's holds go when the session closes. Whether a tool is held is derived (`heldListing`),
 * never recorded: a listing is held when it differs from the pin.
 */
export const pinsProjection: Projection<PinState> = {
  module: import.meta.url,
  name: 'pins.tools',
  // Snapshots of it are kept beside the log: bump this whenever the fold changes.
  version: 1,
  init: () => ({ tools: new Map(), sources: new Set(), sessions: new Map() }),
  evolve(state, event: Recorded) {
    switch (event.type) {
      case 'tool.pinned': {
        const { tool, digest, definition, source, cause, by } = event.data;
        const record = recordOf(state, tool, source);
        record.pin = { digest, definition, at: event.at, cause, ...(by === undefined ? {} : { by }) };
        // The owner's edit stands for every listing of the tool.
        if (cause === 'config') record.listings.clear();
        state.sources.add(source);
        return state;
      }
      case 'tool.held': {
        const { tool, digest, definition, source, cause, sessionId } = event.data;
        list(state, recordOf(state, tool, source), tool, sessionId, { digest, at: event.at, definition, cause });
        return state;
      }
      case 'tool.released': {
        const { tool, digest, sessionId } = event.data;
        const record = state.tools.get(tool);
        // Everyone's listing shows the pin: nothing to keep. A session's is kept, as it may differ from everyone's.
        if (sessionId === undefined) record?.listings.delete(SHARED);
        else if (record) {
          const definition = record.pin?.digest === digest ? record.pin.definition : undefined;
          list(state, record, tool, sessionId, { digest, at: event.at, ...(definition ? { definition } : {}) });
        }
        return state;
      }
      case 'tool.pin_rejected':
        state.tools.get(event.data.tool)?.rejected.add(event.data.digest);
        return state;
      case 'session.closed':
        return closed(state, event.data.sessionId);
      default:
        return state;
    }
  },
};

function recordOf(state: PinState, tool: string, source: string): ToolRecord {
  const existing = state.tools.get(tool);
  if (existing) {
    existing.source = source;
    return existing;
  }
  const record: ToolRecord = { source, listings: new Map(), rejected: new Set() };
  state.tools.set(tool, record);
  return record;
}

function list(state: PinState, record: ToolRecord, tool: string, sessionId: string | undefined, listing: Listing) {
  record.listings.set(sessionId ?? SHARED, listing);
  if (sessionId === undefined) return;
  const tools = state.sessions.get(sessionId) ?? new Set<string>();
  state.sessions.set(sessionId, tools.add(tool));
}

function closed(state: PinState, sessionId: string): PinState {
  for (const tool of state.sessions.get(sessionId) ?? []) state.tools.get(tool)?.listings.delete(sessionId);
  state.sessions.delete(sessionId);
  return state;
}

/** What the scope lists as last recorded: the session's own listing, else everyone's, else the pin. */
export function listedDigest(record: ToolRecord | undefined, sessionId: string | undefined): string | undefined {
  return listingOf(record, sessionId)?.digest ?? record?.pin?.digest;
}

/** The listing `sessionId` (or everyone) is held at, if the tool is held there. */
export function heldListing(record: ToolRecord | undefined, sessionId: string | undefined): Listing | undefined {
  const listing = listingOf(record, sessionId);
  return listing && listing.digest !== record!.pin?.digest ? listing : undefined;
}

function listingOf(record: ToolRecord | undefined, sessionId: string | undefined): Listing | undefined {
  if (!record) return undefined;
  return (sessionId === undefined ? undefined : record.listings.get(sessionId)) ?? record.listings.get(SHARED);
}
