import { createHash } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import { FactorlyError, messageOf } from '../base/errors.js';
import type { ProjectionRebuilt } from './catalog.js';
import { GENESIS_HASH, type NewEvent, type Recorded } from './envelope.js';
import type { Folded, Projection, ProjectionView } from './projection.js';
import { snapshotDigest, snapshotProblem, type StoredSnapshot, type UnrecordedSnapshot } from './snapshot-digest.js';
import { upcast } from './upcast.js';

export type { StoredSnapshot } from './snapshot-digest.js';

/** A snapshot due to be stored, with the event that records its digest still to be written (see `savedRecord`). */
export interface DueSnapshot {
  name: string;
  snapshot: UnrecordedSnapshot;
}

/** What the set needs from a log implementation, all synchronous (LMDB reads are; a networked log reads ahead). */
export interface ProjectionSource {
  loadSnapshot(name: string): StoredSnapshot | undefined;
  hashAt(seq: number): string | undefined;
  /** Events from `from` up to `to` (inclusive), in seq order. */
  readRange(from: number, to: number): Iterable<Recorded>;
}

/**
 * Fewest events between two snapshots of one projection. Past that, a snapshot is written once there
 * are as many events since it as it has bytes / 256: a writer spends a few percent of its time on
 * snapshots (an event folded in the write costs about what 256 bytes cost to serialise and store),
 * and a process opening the log folds at most that many events, about what loading the snapshot
 * itself costs, however long the log is.
 */
const MIN_EVENTS_BETWEEN_SNAPSHOTS = 256;
const SNAPSHOT_BYTES_PER_EVENT = 256;

interface Entry {
  projection: Projection<unknown>;
  stamp: string;
  loaded: boolean;
  state: unknown;
  seq: number;
  hash: string;
  broken?: string;
  savedSeq: number;
  savedBytes: number;
  /** The last refusal of its snapshot this set recorded a notice for. */
  noticed?: string;
  /** Its stored snapshot was refused: the next write replaces it. */
  refused?: boolean;
}

/**
 * The persisted projections of one log (see `Projection`): loads each from its snapshot, folds the
 * events since, folds what the log appends, and says which snapshots are due. Shared by every
 * `EventLog` implementation; the implementation decides where snapshots live and writes them in the
 * same write as the events when it can (LMDB), or right after (a store without transactions: the
 * stamp makes a late snapshot as good as any).
 */
export class ProjectionSet {
  private readonly entries = new Map<string, Entry>();
  private readonly notices: NewEvent<'projection.rebuilt'>[] = [];

  /** Registers a projection (true when it is new); the same one again is a no-op, another one under a taken name is refused. */
  register(projection: Projection<unknown>): boolean {
    const existing = this.entries.get(projection.name);
    if (existing?.projection === projection) return false;
    if (existing)
      throw new FactorlyError('PROJECTION_CONFLICT', `two different projections are named "${projection.name}"`);
    this.entries.set(projection.name, {
      projection,
      stamp: stampOf(projection),
      loaded: false,
      state: undefined,
      seq: 0,
      hash: GENESIS_HASH,
      savedSeq: 0,
      savedBytes: 0,
    });
    return true;
  }

  /** The view of a registered projection; `catchUp` brings every projection to the log's head. */
  view<S>(name: string, catchUp: () => void | Promise<void>): ProjectionView<S> {
    return {
      name,
      current: async () => {
        await catchUp();
        return this.folded<S>(name);
      },
      folded: () => this.folded<S>(name),
    };
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  get size(): number {
    return this.entries.size;
  }

  /** Whether a refused snapshot waits to be recorded (see `takeNotices`). */
  get noticed(): boolean {
    return this.notices.length > 0;
  }

  /** Loads every registered projection not loaded yet, then folds all of them up to `head`. */
  catchUp(source: ProjectionSource, head: number): void {
    for (const entry of this.entries.values()) if (!entry.loaded) this.load(entry, source, head);
    const behind = [...this.entries.values()].filter((entry) => entry.seq < head && !entry.broken);
    if (behind.length === 0) return;
    const from = Math.min(...behind.map((entry) => entry.seq)) + 1;
    for (const event of source.readRange(from, head)) this.apply([event]);
  }

  /** Folds events the log has just written (or read), skipping those a projection already holds. */
  apply(events: readonly Recorded[]): void {
    for (const event of events) {
      let current: Recorded | undefined;
      for (const entry of this.entries.values()) {
        if (!entry.loaded || entry.broken || event.seq <= entry.seq) continue;
        if (event.seq !== entry.seq + 1) {
          // A gap means the fold missed events: start it over rather than use it.
          entry.loaded = false;
          continue;
        }
        current ??= upcast(event);
        try {
          entry.state = entry.projection.evolve(entry.state, current);
        } catch (error) {
          entry.broken = messageOf(error);
          entry.state = undefined;
          continue;
        }
        entry.seq = event.seq;
        entry.hash = event.hash;
      }
    }
  }

  /** The state of one projection as folded so far. */
  folded<S>(name: string): Folded<S> {
    const entry = this.entries.get(name);
    if (!entry) throw new FactorlyError('PROJECTION_UNKNOWN', `no projection "${name}" is registered with this log`);
    if (entry.broken)
      throw new FactorlyError('PROJECTION_BROKEN', `projection "${name}" could not fold the log: ${entry.broken}`);
    if (!entry.loaded)
      throw new FactorlyError('PROJECTION_UNKNOWN', `projection "${name}" has not been read from the log yet`);
    return { seq: entry.seq, state: entry.state as S };
  }

  /**
   * Snapshots worth writing now, marked as saved: by the interval policy, or, given `atLeast`, every
   * one with at least that many events not in its stored snapshot (0: every unsaved one). Each carries
   * its digest; the log records them (`savedRecord`) in the write that stores them.
   */
  due(atLeast?: number): DueSnapshot[] {
    const out: DueSnapshot[] = [];
    for (const [name, entry] of this.entries) {
      if (!entry.loaded || entry.broken || entry.seq <= entry.savedSeq) continue;
      const interval = atLeast ?? Math.max(MIN_EVENTS_BETWEEN_SNAPSHOTS, entry.savedBytes / SNAPSHOT_BYTES_PER_EVENT);
      // A stored snapshot this set refused is replaced with the next write, whatever the interval.
      if (entry.seq - entry.savedSeq < interval && !entry.refused) continue;
      entry.refused = false;
      const unsigned = { stamp: entry.stamp, seq: entry.seq, hash: entry.hash, state: serialize(entry.state) };
      out.push({ name, snapshot: { ...unsigned, digest: snapshotDigest(name, unsigned) } });
      entry.savedSeq = entry.seq;
      entry.savedBytes = unsigned.state.byteLength;
    }
    return out;
  }

  /**
   * The `projection.rebuilt` events for the snapshots this set refused since last asked (each fold
   * then started from seq 1): the log appends them with its next write, so a rebuild is on record.
   */
  takeNotices(): NewEvent[] {
    return this.notices.splice(0);
  }

  /** Notes other derived state the log refused (an index), to be recorded with the next write like a refused snapshot. */
  note(data: ProjectionRebuilt): void {
    this.notices.push({ type: 'projection.rebuilt', data });
  }

  /** Forgets every fold (after a write that failed: the folds may hold events never committed). */
  reset(): void {
    for (const entry of this.entries.values())
      Object.assign(entry, { loaded: false, state: undefined, seq: 0, hash: GENESIS_HASH, broken: undefined });
  }

  /** Drops every fold and its snapshot's standing, so the next catch-up folds from seq 1 (`logs rebuild`). */
  forget(): void {
    this.reset();
    for (const entry of this.entries.values())
      Object.assign(entry, { loaded: true, state: entry.projection.init(), savedSeq: 0, savedBytes: 0 });
  }

  private load(entry: Entry, source: ProjectionSource, head: number): void {
    const snapshot = source.loadSnapshot(entry.projection.name);
    let state: unknown;
    if (snapshot && this.usable(entry, snapshot, source, head)) {
      state = restore(snapshot);
      if (state === undefined) this.notice(entry, snapshot, 'its state cannot be read');
    }
    const restored = snapshot !== undefined && state !== undefined;
    Object.assign(entry, {
      loaded: true,
      broken: undefined,
      state: restored ? state : entry.projection.init(),
      seq: restored ? snapshot.seq : 0,
      hash: restored ? snapshot.hash : GENESIS_HASH,
      savedSeq: restored ? snapshot.seq : 0,
      savedBytes: restored ? snapshot.state.byteLength : 0,
    });
  }

  /**
   * Whether a stored snapshot may be used: made by this code (another version is simply folded
   * again), of this history, and vouched for by the chain (its digest recorded by a `projection.saved`
   * event). Any other refusal is noticed, to be recorded.
   */
  private usable(entry: Entry, snapshot: StoredSnapshot, source: ProjectionSource, head: number): boolean {
    if (snapshot.stamp !== entry.stamp) return false;
    let problem: string | undefined;
    if (snapshot.seq > head || source.hashAt(snapshot.seq) !== snapshot.hash)
      problem = `it was folded over another history (the event at seq ${snapshot.seq} is not the one it names)`;
    else {
      const { recorded } = snapshot;
      const [record] =
        Number.isSafeInteger(recorded) && recorded > snapshot.seq && recorded <= head
          ? source.readRange(recorded, recorded)
          : [];
      problem = snapshotProblem(entry.projection.name, snapshot, record);
    }
    if (problem !== undefined) this.notice(entry, snapshot, problem);
    return problem === undefined;
  }

  /** Notes a refused snapshot once per process (a fold that is loaded again meets it again). */
  private notice(entry: Entry, snapshot: StoredSnapshot, reason: string): void {
    entry.refused = true;
    const key = `${snapshot.seq}:${snapshot.digest}:${reason}`;
    if (entry.noticed === key) return;
    entry.noticed = key;
    this.notices.push({
      type: 'projection.rebuilt',
      data: { name: entry.projection.name, kind: 'projection', reason, seq: snapshot.seq },
    });
  }
}

/** A snapshot's state, or undefined when its bytes do not deserialise. */
function restore(snapshot: StoredSnapshot): unknown {
  try {
    return deserialize(snapshot.state);
  } catch {
    return undefined;
  }
}

/** The declared version and a digest of the fold's own code: an edit that forgot to bump the version still rebuilds. */
export function stampOf(projection: Projection<unknown>): string {
  const code = createHash('sha256')
    .update(String(projection.init))
    .update('\0')
    .update(String(projection.evolve))
    .digest('hex');
  return `${projection.version ?? 1}:${code.slice(0, 16)}`;
}
