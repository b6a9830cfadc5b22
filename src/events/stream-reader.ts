import { setTimeout as delay } from 'node:timers/promises';
import { FactorlyError } from '../base/errors.js';
import { checkedBatch, deletedBatch } from './batch-events.js';
import { retried, RETRY_MS } from './call-deadlines.js';
import { FragmentRuns, messageOf } from './batch-fragments.js';
import type { BatchStream, StoredBatch } from './batch-stream.js';
import type { ChainBreak } from './chain-check.js';
import { GENESIS_HASH, type Recorded } from './envelope.js';
import type { BatchPlace, EventCache } from './event-cache.js';
import type { LogHead } from './log.js';
import { batchBefore, type StreamTip } from './stream-tip.js';

/** A batch read, with where it sits. */
export interface PlacedBatch {
  place: BatchPlace;
  events: Recorded[];
}

/** Fewer positions than this are read one by one rather than through a range read. */
const FEW = 8;
/** Probes a search by seq may take before it gives up (it halves the range at least every second one). */
const MAX_PROBES = 128;

/**
 * Reads a shared stream's events on demand, by seq, without holding the stream: each batch from the
 * stream itself (`BatchStream.get`, asked of the stream, not of a copy that may lag), checked on its
 * own (seqs, chain, hashes) and, in a range, against the one before it; kept in the node's bounded
 * `EventCache`. An event is found by seq by searching the positions (the seqs of a batch grow with
 * its position), guided by the batches already placed. A range read that meets a position the
 * stream no longer holds, or a batch that does not carry on the chain, stops there and keeps the break.
 */
export class StreamReader {
  /** The first break a read met (a deleted batch, one that does not chain), which reads stop at. */
  broken?: ChainBreak;
  /** Where batches were said to sit (kept beside the stream by the node that saw them): tried first, then checked. */
  private readonly hints = new Map<number, BatchPlace>();

  constructor(
    private readonly stream: BatchStream,
    private readonly cache: EventCache,
    private readonly tip: () => StreamTip,
    /** How long a read keeps trying while the stream does not answer, in ms (from its last progress). */
    private readonly timeoutMs = 10_000,
  ) {}

  async eventAt(seq: number): Promise<Recorded | undefined> {
    const cached = this.cache.get(seq);
    if (cached) return cached;
    const place = await this.place(seq);
    if (!place) return undefined;
    return (await this.batchAt(place))?.events.find((event) => event.seq === seq);
  }

  /** Events `from` to `to` (inclusive) in order, read as they are taken; `keep` also keeps them in the cache. */
  async *events(from: number, to: number, keep = false): AsyncIterable<Recorded> {
    if (from > to) return;
    const cached = this.cache.range(from, to);
    if (cached) {
      yield* cached;
      return;
    }
    const start = await this.place(from);
    if (!start) return;
    const runs = new FragmentRuns();
    let expected = start.from;
    let previous = this.linkBefore(start.firstSeq);
    const before = (): number => previous?.seq ?? start.firstSeq - 1;
    for await (const message of this.read(start.from, this.tip().position)) {
      if (message.position !== expected) return this.stop(deletedBatch(expected, before()));
      expected += 1;
      const taken = runs.take(message.position, message.payload);
      if (taken === undefined) continue;
      if ('corrupt' in taken)
        return this.stop({ seq: before() + 1, kind: 'corrupt', reason: `${taken.corrupt}: the log stops before it` });
      const checked = checkedBatch(message.position, taken.payload, previous);
      if ('broken' in checked) return this.stop(checked.broken);
      const { events } = checked;
      const place = placeOf(taken.from, message.position, events);
      if (keep) this.cache.add(place, events, taken.payload.length);
      else this.cache.remember(place);
      previous = { seq: place.lastSeq, hash: events.at(-1)!.hash };
      for (const event of events) if (event.seq >= from && event.seq <= to) yield event;
      if (place.lastSeq >= to) return;
    }
  }

  /** Events from `to` down to `from`, newest first: the batch holding `to`, then each one before it on the stream. */
  async *backwards(to: number, from: number): AsyncIterable<Recorded> {
    const start = await this.place(to);
    let batch = start && (await this.batchAt(start));
    while (batch) {
      for (let i = batch.events.length - 1; i >= 0; i -= 1) {
        const event = batch.events[i]!;
        if (event.seq < from) return;
        if (event.seq <= to) yield event;
      }
      if (batch.place.firstSeq <= from || batch.place.from <= 1) return;
      batch = await this.batchBefore(batch);
    }
  }

  /** The batch right before `batch` on the stream (fragments no commit followed passed over), checked as the one it carries on from. */
  private async batchBefore(batch: PlacedBatch): Promise<PlacedBatch | undefined> {
    const found = (await batchBefore({ get: (position) => this.get(position) }, batch.place.from - 1)).batch;
    const checked = found && checkedBatch(found.at, found.payload);
    if (!checked || 'broken' in checked) return undefined;
    const { events } = checked;
    const first = batch.events[0]!;
    if (events.at(-1)!.seq !== first.seq - 1 || events.at(-1)!.hash !== first.prevHash) return undefined;
    const place = placeOf(found.from, found.at, events);
    this.cache.add(place, events, found.payload.length);
    return { place, events };
  }

  /** Where the batch holding `seq` sits, searched by position; undefined past the head or where no batch holds it. */
  async place(seq: number): Promise<BatchPlace | undefined> {
    const { position, head } = this.tip();
    if (seq < 1 || seq > head.seq) return undefined;
    const cached = this.cache.around(seq).holding ?? (await this.hinted(seq));
    if (cached) return cached;
    // After the hints: a batch placed just before `seq` bounds the search, which then starts right after it.
    const known = this.cache.around(seq);
    let low = known.before ?? { from: 0, to: 0, firstSeq: 0, lastSeq: 0 };
    let high = known.after ?? { from: position + 1, to: position + 1, firstSeq: head.seq + 1, lastSeq: head.seq + 1 };
    // Interpolation finds it in a few probes when batches are alike; a probe that did not halve the range is followed by one that does.
    let halve = false;
    for (let probe = 0; probe < MAX_PROBES && high.from - low.to > 1; probe += 1) {
      const span = high.from - low.to - 1;
      const share = (seq - low.lastSeq) / Math.max(high.firstSeq - low.lastSeq, 1);
      const offset = halve ? Math.floor(span / 2) : Math.floor(share * span);
      const at = low.to + 1 + Math.min(Math.max(offset, 0), span - 1);
      const found = await this.placeFrom(at, high.from - 1);
      if (!found) high = { ...high, from: at, to: at };
      else if (found.lastSeq < seq) low = found;
      else if (found.firstSeq > seq) high = found;
      else return found;
      halve = !halve && high.from - low.to - 1 > span / 2;
    }
    return undefined;
  }

  /** Where the batch holding `seq` is said to be, by a node that read it (see `hinted`). */
  hint(seq: number, place: BatchPlace): void {
    this.hints.set(seq, place);
  }

  /** Where the batch holding `seq` was, when this node has placed it. */
  known(seq: number): BatchPlace | undefined {
    return this.cache.around(seq).holding;
  }

  /** The place hinted for `seq` (or for the seq before it), when the stream holds that batch there. */
  private async hinted(seq: number): Promise<BatchPlace | undefined> {
    for (const at of [seq, seq - 1]) {
      const hint = this.hints.get(at);
      if (!hint) continue;
      this.hints.delete(at);
      // Placed (and so kept) when it is there: a batch holding `seq - 1` bounds the search for `seq`.
      const found = await this.placeFrom(hint.from, hint.to);
      if (found && found.firstSeq <= seq && seq <= found.lastSeq) return found;
    }
    return undefined;
  }

  /** The batch at `place`, from the cache or the stream (a fragmented one reassembled), checked on its own. */
  async batchAt(place: BatchPlace): Promise<PlacedBatch | undefined> {
    const cached = this.cache.range(place.firstSeq, place.lastSeq);
    if (cached) return { place, events: cached };
    const runs = new FragmentRuns();
    const messages = place.from === place.to ? [await this.get(place.to)] : this.read(place.from, place.to);
    for await (const message of messages) {
      const taken = message && runs.take(message.position, message.payload);
      if (!taken || 'corrupt' in taken) continue;
      const checked = checkedBatch(message!.position, taken.payload);
      if ('broken' in checked) return undefined;
      const actual = placeOf(taken.from, message!.position, checked.events);
      this.cache.add(actual, checked.events, taken.payload.length);
      return { place: actual, events: checked.events };
    }
    return undefined;
  }

  /** The first batch that starts at or after position `at` (up to `limit`), placed from as little as can be read. */
  private async placeFrom(at: number, limit: number): Promise<BatchPlace | undefined> {
    for (let position = at; position <= limit; position += 1) {
      const message = await this.get(position);
      if (!message) continue;
      const kind = messageOf(message.payload);
      const found =
        kind.kind === 'batch'
          ? placeOfBytes(position, message.payload)
          : kind.kind === 'commit'
            ? commitPlace(position, kind.parts, kind.seqs)
            : undefined;
      if (found) {
        this.cache.remember(found);
        return found;
      }
      if (kind.kind !== 'fragment') continue;
      // A fragment: its commit, if it was stored, comes right after its last part.
      const commitAt = position - kind.part + kind.parts;
      const commit = commitAt <= limit ? await this.get(commitAt) : undefined;
      const read = commit && messageOf(commit.payload);
      if (read?.kind === 'commit' && read.batch === kind.batch && read.parts === kind.parts)
        return commitPlace(commitAt, read.parts, read.seqs);
    }
    return undefined;
  }

  private read(from: number, to: number): AsyncIterable<StoredBatch> {
    if (to - from >= FEW) return this.resumed(from, to);
    return (async function* (reader: StreamReader) {
      for (let position = from; position <= to; position += 1) {
        const message = await reader.get(position);
        if (message) yield message;
      }
    })(this);
  }

  /** A message by position, asked again while the stream does not answer (its own verdict, a `FactorlyError`, is final). */
  private get(position: number): Promise<StoredBatch | undefined> {
    return retried(() => this.stream.get(position), this.timeoutMs);
  }

  /** A range read that picks up after the last message it had when the stream stops answering. */
  private async *resumed(from: number, to: number): AsyncIterable<StoredBatch> {
    let next = from;
    for (let deadline = Date.now() + this.timeoutMs; ;) {
      try {
        for await (const message of this.stream.read(next, to)) {
          next = message.position + 1;
          deadline = Date.now() + this.timeoutMs;
          yield message;
        }
        return;
      } catch (error) {
        if (FactorlyError.isInstance(error) || Date.now() >= deadline) throw error;
        await delay(RETRY_MS);
      }
    }
  }

  /** The head a batch starting at `seq` must carry on, when it is known here (genesis before seq 1). */
  private linkBefore(seq: number): LogHead | undefined {
    if (seq === 1) return { seq: 0, hash: GENESIS_HASH };
    const event = this.cache.get(seq - 1);
    return event && { seq: event.seq, hash: event.hash };
  }

  private stop(broken: ChainBreak): undefined {
    if (!this.broken || broken.seq < this.broken.seq) this.broken = broken;
    return undefined;
  }
}

/** Where a whole batch sits, from its bytes (its events unchecked: a place only guides a read, which checks them). */
function placeOfBytes(position: number, payload: Uint8Array): BatchPlace | undefined {
  try {
    const events = JSON.parse(Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8'));
    const [first, last] = [events?.[0]?.seq, events?.at?.(-1)?.seq];
    return Number.isSafeInteger(first) && Number.isSafeInteger(last) && last >= first
      ? { from: position, to: position, firstSeq: first, lastSeq: last }
      : undefined;
  } catch {
    return undefined;
  }
}

function placeOf(from: number, to: number, events: readonly Recorded[]): BatchPlace {
  return { from, to, firstSeq: events[0]!.seq, lastSeq: events.at(-1)!.seq };
}

function commitPlace(position: number, parts: number, seqs: [number, number]): BatchPlace {
  return { from: position - parts, to: position, firstSeq: seqs[0], lastSeq: seqs[1] };
}
