import type { Recorded } from './envelope.js';

/** Where one batch sits: the positions it spans on the stream and the seqs of its events. */
export interface BatchPlace {
  /** Its first position (a fragmented batch's first fragment) and its last (the batch, or its commit). */
  from: number;
  to: number;
  firstSeq: number;
  lastSeq: number;
}

/** Events kept at most (the newest used stay). */
const MAX_EVENTS = 20_000;
/** Bytes of events kept at most, as stored (a few large outputs do not crowd out memory). */
const MAX_BYTES = 64 * 1024 * 1024;
/** Batch places kept at most (each a few numbers: they guide reads by seq). */
const MAX_PLACES = 50_000;

/**
 * The events a node has at hand, bounded (by count and by bytes), whatever the length of the
 * stream: those it wrote or followed lately and those it read, the least recently used dropped
 * first; and where their batches sit on the stream, so a read by seq goes straight there.
 */
export class EventCache {
  private readonly events = new Map<number, { event: Recorded; bytes: number }>();
  private readonly places = new Map<number, BatchPlace>();
  private bytes = 0;

  constructor(
    private readonly maxEvents = MAX_EVENTS,
    private readonly maxBytes = MAX_BYTES,
  ) {}

  /** A batch's events (`bytes`: its stored size), and where it sits. */
  add(place: BatchPlace, events: readonly Recorded[], bytes: number): void {
    this.remember(place);
    const each = Math.ceil(bytes / Math.max(events.length, 1));
    for (const event of events) {
      const had = this.events.get(event.seq);
      if (had) {
        this.events.delete(event.seq);
        this.bytes -= had.bytes;
      }
      this.events.set(event.seq, { event, bytes: each });
      this.bytes += each;
    }
    this.evict();
  }

  get(seq: number): Recorded | undefined {
    const kept = this.events.get(seq);
    if (!kept) return undefined;
    // Used again: the newest to stay.
    this.events.delete(seq);
    this.events.set(seq, kept);
    return kept.event;
  }

  /** Events `from` to `to` when every one of them is here (undefined otherwise). */
  range(from: number, to: number): Recorded[] | undefined {
    const out: Recorded[] = [];
    for (let seq = from; seq <= to; seq += 1) {
      const kept = this.events.get(seq);
      if (!kept) return undefined;
      out.push(kept.event);
    }
    return out;
  }

  remember(place: BatchPlace): void {
    this.places.delete(place.from);
    this.places.set(place.from, place);
    if (this.places.size > MAX_PLACES) this.places.delete(this.places.keys().next().value!);
  }

  /** The known batches nearest `seq`: the last one before it and the first one from it on. */
  around(seq: number): { before?: BatchPlace; holding?: BatchPlace; after?: BatchPlace } {
    let before: BatchPlace | undefined;
    let after: BatchPlace | undefined;
    for (const place of this.places.values()) {
      if (place.firstSeq <= seq && seq <= place.lastSeq) return { holding: place };
      if (place.lastSeq < seq && (!before || place.lastSeq > before.lastSeq)) before = place;
      if (place.firstSeq > seq && (!after || place.firstSeq < after.firstSeq)) after = place;
    }
    return { before, after };
  }

  get size(): { events: number; bytes: number } {
    return { events: this.events.size, bytes: this.bytes };
  }

  private evict(): void {
    for (const [seq, kept] of this.events) {
      if (this.events.size <= this.maxEvents && this.bytes <= this.maxBytes) return;
      this.events.delete(seq);
      this.bytes -= kept.bytes;
    }
  }
}
