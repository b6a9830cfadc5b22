import { FactorlyError } from '../base/errors.js';
import { GENESIS_HASH, type NewEvent, type Recorded } from './envelope.js';
import type { BatchPlace } from './event-cache.js';
import { LOG_FOLDS } from './log-folds.js';
import { listInflight, type InflightEntry } from './inflight-fold.js';
import { writerEventId } from './lmdb-inflight.js';
import type { Inflight } from './writer.js';
import type { Folded, Projection } from './projection.js';
import { ProjectionSet, type StoredSnapshot } from './projection-set.js';
import { CallIndex } from './call-index.js';
import { IdIndex } from './id-index.js';
import { sideKey, type SideStore } from './side-store.js';
import { savedRecord } from './snapshot-digest.js';
import { decodeSnapshot, encodeSnapshot, type SnapshotStore } from './snapshot-store.js';
import type { StreamReader } from './stream-reader.js';

/** Events folded per step while catching up (a long catch-up never holds more). */
const CHUNK = 1_000;
/** A long fold saves the snapshots due every this many chunks. */
const SAVE_EVERY_CHUNKS = 20;
/** A catch-up this short also keeps the events it read at hand (the tail a node joins on, what others appended). */
const KEEP_UP_TO = 5_000;
/** Id entries written out once this many events are folded past their stored coverage (by a node that writes). */
const FLUSH_EVERY = 256;
/** Call pages written out once this many events are folded past theirs. */
const CALLS_EVERY = 4_096;
/** Past this many, any node writes them out while folding, so a long catch-up (a rebuild) stays in bounded memory. */
const FLUSH_WHILE_FOLDING = 8 * FLUSH_EVERY;

/** Snapshots beside the stream: `snapshot.<name>` → the snapshot's bytes (`encodeSnapshot`). */
export class SideSnapshots implements SnapshotStore {
  constructor(private readonly side: SideStore) {}

  async loadSnapshot(name: string): Promise<StoredSnapshot | undefined> {
    return decodeSnapshot(await this.side.get(`snapshot.${sideKey(name)}`));
  }

  saveSnapshot(name: string, snapshot: StoredSnapshot): Promise<void> {
    return this.side.put(`snapshot.${sideKey(name)}`, encodeSnapshot(snapshot));
  }
}

/**
 * What a log over a shared stream derives from it: its persisted projections (the registered ones and
 * the log's own, `LOG_FOLDS`) and its lookups (`SideIndex`), each loaded from what is kept beside the
 * stream and folded on from there, from events the `StreamReader` reads on demand. Folding is
 * lazy and one at a time: whatever needs the folds at the head (a read, a write) brings them there.
 */
export class ReplicatedFolds {
  readonly projections = new ProjectionSet();
  readonly ids: IdIndex;
  readonly calls: CallIndex;
  private readonly snapshots: SideSnapshots;
  private readonly unloaded = new Set<string>();
  private indexLoaded = false;
  private folding: Promise<void> = Promise.resolve();
  private foldedTo = 0;

  constructor(
    private readonly side: SideStore,
    private readonly reader: StreamReader,
  ) {
    this.ids = new IdIndex(side);
    this.calls = new CallIndex(side);
    this.snapshots = new SideSnapshots(side);
    for (const fold of LOG_FOLDS) this.register(fold);
  }

  /** Registers a projection (see `ProjectionSet.register`); it is loaded by the next fold. */
  register(projection: Projection<unknown>): void {
    if (this.projections.register(projection)) this.unloaded.add(projection.name);
  }

  folded<S>(name: string): Folded<S> {
    return this.projections.folded<S>(name);
  }

  /** Brings every projection and the index up to `seq` (at least), loading what is not loaded yet. */
  upTo(seq: number): Promise<void> {
    if (this.unloaded.size === 0 && this.indexLoaded && this.foldedTo >= seq && this.calls.folded >= seq)
      return this.folding;
    const run = this.folding.then(() => this.foldTo(seq));
    this.folding = run.catch(() => undefined);
    return run;
  }

  /** Snapshots due (see `ProjectionSet.due`) and index entries worth writing, kept beside the stream. */
  async save(atLeast?: number): Promise<void> {
    await this.folding;
    await this.saveNow(atLeast);
  }

  /**
   * Appends what the log records of its derived state and returns it as stored (set by the log:
   * beside the stream there is no transaction, so the record goes first and the snapshots after it).
   */
  record?: (events: readonly NewEvent[]) => Promise<Recorded[]>;

  /**
   * Snapshots due, each stored only once the event that records its digest (with the refusals of
   * snapshots this node did not use) is on the stream, and index entries worth writing. While
   * folding (`snapshots: false`) only the index entries: a record is an append, which waits for folds.
   */
  private async saveNow(atLeast?: number, snapshots = true): Promise<void> {
    if (snapshots && this.record) await this.saveSnapshots(atLeast);
    const flush = this.ids.tail >= (atLeast ?? FLUSH_EVERY);
    if (flush) await this.ids.flush();
    if (this.calls.tail >= Math.max(atLeast ?? CALLS_EVERY, 1)) await this.calls.flush();
    if (flush) await this.places([this.ids.coverage]);
  }

  private async saveSnapshots(atLeast?: number): Promise<void> {
    const due = this.projections.due(atLeast);
    const records = [...this.projections.takeNotices(), ...(due.length > 0 ? [savedRecord(due)] : [])];
    if (records.length === 0) return;
    const recorded = (await this.record!(records)).at(-1)!.seq;
    await Promise.all(due.map(({ name, snapshot }) => this.snapshots.saveSnapshot(name, { ...snapshot, recorded })));
    await this.places(due.map(({ snapshot }) => snapshot.seq));
  }

  /**
   * Beside the stream, where the batches holding `seqs` sit (`place.<seq>`), for the node that folds
   * on from one of them next: it reads there first instead of searching (and checks it is so).
   */
  private async places(seqs: readonly number[]): Promise<void> {
    const known = [...new Set(seqs)].flatMap((seq) => {
      const place = this.reader.known(seq);
      return place ? [[seq, place] as const] : [];
    });
    await Promise.all(known.map(([seq, place]) => this.side.put(`place.${seq}`, Buffer.from(JSON.stringify(place)))));
  }

  /** The places said of `seqs` (see `places`), handed to the reader. */
  private async hints(seqs: readonly number[]): Promise<void> {
    await Promise.all(
      [...new Set(seqs)].map(async (seq) => {
        const bytes = seq > 0 ? await this.side.get(`place.${seq}`).catch(() => undefined) : undefined;
        const place = bytes && parsedPlace(bytes);
        if (place) this.reader.hint(seq, place);
      }),
    );
  }

  /** The calls and sessions open now (`log.inflight`), with the record of each writer that opened one. */
  async inflight(named: (id: string) => Promise<Recorded | undefined>): Promise<Inflight> {
    const open = [...this.folded<Map<string, InflightEntry>>('log.inflight').state];
    const writers = new Map<string, Recorded<'writer.started'>>();
    for (const writer of new Set(open.map(([, entry]) => entry.writer))) {
      const record = await named(writerEventId(writer));
      if (record?.type === 'writer.started') writers.set(writer, record as Recorded<'writer.started'>);
    }
    return listInflight(
      open.map(([key, value]) => ({ key, value })),
      (writer) => writers.get(writer)?.data,
    );
  }

  /** The snapshots kept beside the stream for projections `names` (for `logs verify`), found ones only. */
  async stored(names: readonly string[]): Promise<{ name: string; snapshot?: StoredSnapshot }[]> {
    const snapshots = await Promise.all(names.map((name) => this.snapshots.loadSnapshot(name)));
    return names.flatMap((name, i) => (snapshots[i] ? [{ name, snapshot: snapshots[i] }] : []));
  }

  /** Where the events of call `callId` are (the call pages loaded, when they are not yet, and folded up to `head`). */
  async callSeqs(callId: string, head: number): Promise<number[]> {
    await this.calls.load();
    await this.upTo(head);
    return this.calls.seqsOf(callId);
  }

  /** On a node that keeps running: the call pages loaded and kept up in the background, so it writes them out as they are due. */
  async keepCalls(head: number): Promise<void> {
    if (this.calls.loaded) return;
    await this.calls.load();
    await this.upTo(head);
  }

  /** Every fold from seq 1 again (`logs rebuild`), up to `head`, and every snapshot and index entry written anew. */
  async rebuild(head: number, progress?: (done: number, total: number) => void): Promise<string[]> {
    const run = this.folding.then(async () => {
      this.projections.forget();
      this.ids.restart();
      this.calls.restart();
      this.foldedTo = 0;
      await this.foldEvents(1, head, progress);
      await this.saveNow(0, false);
      this.ids.rewriting = false;
      this.calls.rewriting = false;
    });
    this.folding = run.catch(() => undefined);
    await run;
    // Outside the fold: the record of the new snapshots is an append.
    await this.saveNow(0);
    return this.projections.names();
  }

  private async foldTo(seq: number): Promise<void> {
    if (!this.indexLoaded) {
      await this.hints([await this.ids.load()]);
      this.indexLoaded = true;
    }
    if (this.unloaded.size > 0) await this.load(seq);
    const from = Math.min(this.ids.folded, this.calls.folded, ...this.seqs()) + 1;
    if (from <= seq) await this.foldEvents(from, seq);
    this.foldedTo = Math.max(this.foldedTo, seq);
  }

  private async foldEvents(from: number, to: number, progress?: (done: number, total: number) => void): Promise<void> {
    let chunk: Recorded[] = [];
    let chunks = 0;
    const fold = async (): Promise<void> => {
      this.projections.apply(chunk);
      this.ids.add(chunk);
      this.calls.add(chunk);
      progress?.(chunk.at(-1)!.seq, to);
      chunk = [];
      // A long fold (a stream written before snapshots were kept) leaves its progress beside the stream as it goes.
      if ((chunks += 1) % SAVE_EVERY_CHUNKS === 0) await this.saveNow(undefined, false).catch(() => undefined);
      if (this.ids.tail >= FLUSH_WHILE_FOLDING) await this.ids.flush().catch(() => undefined);
      if (this.calls.tail >= 2 * CALLS_EVERY) await this.calls.flush().catch(() => undefined);
    };
    for await (const event of this.reader.events(from, to, to - from < KEEP_UP_TO)) {
      chunk.push(event);
      if (chunk.length >= CHUNK) await fold();
    }
    if (chunk.length > 0) await fold();
  }

  /** Loads the projections registered since the last fold from their snapshots (at most `head`). */
  private async load(head: number): Promise<void> {
    const names = [...this.unloaded];
    this.unloaded.clear();
    const loaded = new Map<string, StoredSnapshot>();
    await Promise.all(
      names.map(async (name) => {
        const snapshot = await this.snapshots.loadSnapshot(name).catch(() => undefined);
        if (snapshot) loaded.set(name, snapshot);
      }),
    );
    await this.hints([...loaded.values()].map(({ seq }) => seq));
    // The chain hash at each snapshot's seq, and the event recording its digest, read from the stream:
    // a snapshot of another history, or one the chain does not vouch for, is not used.
    const hashes = new Map<number, string>([[0, GENESIS_HASH]]);
    const records = new Map<number, Recorded>();
    for (const { seq, recorded } of loaded.values()) {
      const event = seq > 0 && seq <= head && !hashes.has(seq) ? await this.reader.eventAt(seq) : undefined;
      if (event) hashes.set(seq, event.hash);
      const record =
        recorded > seq && recorded <= head && !records.has(recorded) ? await this.reader.eventAt(recorded) : undefined;
      if (record) records.set(recorded, record);
    }
    this.projections.catchUp(
      {
        loadSnapshot: (name) => loaded.get(name),
        hashAt: (seq) => hashes.get(seq),
        readRange: (from, to) => (from === to && records.has(from) ? [records.get(from)!] : []),
      },
      head,
    );
  }

  /** The seq each projection is folded to (one that is registered but not loaded is queued to load). */
  private seqs(): number[] {
    const seqs: number[] = [];
    for (const name of this.projections.names()) {
      try {
        seqs.push(this.projections.folded(name).seq);
      } catch (error) {
        // Not loaded (dropped after a gap): loaded again at the next fold. A broken one waits for a restart.
        if (FactorlyError.isInstance(error) && error.code === 'PROJECTION_UNKNOWN') this.unloaded.add(name);
      }
    }
    return seqs;
  }
}

function parsedPlace(bytes: Uint8Array): BatchPlace | undefined {
  try {
    const place = JSON.parse(Buffer.from(bytes).toString('utf8')) as BatchPlace;
    const whole = [place.from, place.to, place.firstSeq, place.lastSeq].every((n) => Number.isSafeInteger(n) && n > 0);
    return whole && place.from <= place.to && place.firstSeq <= place.lastSeq ? place : undefined;
  } catch {
    return undefined;
  }
}
