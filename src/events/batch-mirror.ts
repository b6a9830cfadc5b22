import { FactorlyError } from '../base/errors.js';
import type { ChainBreak } from './chain-check.js';
import type { EventType } from './catalog.js';
import { GENESIS_HASH, type Recorded } from './envelope.js';
import { hashEnvelope } from './hash.js';
import { inflightChange, listInflight, type InflightEntry } from './inflight-fold.js';
import { writerEventId } from './lmdb-inflight.js';
import type { LogHead } from './log.js';
import type { Inflight } from './writer.js';
import { CompactRange } from './merkle.js';
import { callIdOf, EMPTY_HEAD } from './append-batch.js';
import { MemoryTreeNodes, TransparencyTree } from './transparency-tree.js';

/**
 * One node's copy of a shared stream's events, fed batch by batch in stream order (what the node
 * wrote itself and what it follows from the others), with what reads need: events by seq, by id, by
 * call and by type, and the Merkle tree. Each batch is checked as it arrives: its events must carry
 * on the chain (seq, prevHash) and hash to what they say, or the copy stops there (`broken`) and
 * the log refuses to write on it.
 */
export class BatchMirror {
  readonly events: Recorded[] = [];
  private readonly byId = new Map<string, Recorded>();
  private readonly byCall = new Map<string, number[]>();
  private readonly latest = new Map<string, number>();
  /** The calls and sessions open now, with the writer that opened each (see `inflightChange`). */
  private readonly open = new Map<string, InflightEntry>();
  private readonly nodes = new MemoryTreeNodes();
  private readonly frontier = new CompactRange();
  private readonly waiters: { position: number; resolve: () => void }[] = [];
  /** The stream position of the last batch applied. */
  position = 0;
  /** Where the copy stopped: a batch that does not carry on the chain, or one the stream lost. */
  broken?: ChainBreak;

  constructor(readonly origin: string) {}

  head(): LogHead {
    const last = this.events.at(-1);
    return last ? { seq: last.seq, hash: last.hash } : EMPTY_HEAD;
  }

  /** Applies the batch at `position` (once: an earlier or repeated position is skipped); returns its events. */
  apply(position: number, payload: Uint8Array | readonly Recorded[]): Recorded[] {
    if (position <= this.position || this.broken) return [];
    // Positions are consecutive (each append names the one before it): a skipped one was deleted.
    if (position > this.position + 1) {
      this.lost(this.position + 1);
      return [];
    }
    const events = Array.isArray(payload) ? (payload as Recorded[]) : this.decode(position, payload as Uint8Array);
    if (this.broken) {
      this.release(true);
      return [];
    }
    const { frontier } = this;
    this.tree().extend(
      frontier,
      events.map((event) => event.hash),
    );
    for (const event of events) this.index(event);
    this.position = position;
    this.release();
    return events;
  }

  /** Resolves once the batch at `position` (or a later one) is applied, or the copy stopped short of it (`broken`). */
  reached(position: number): Promise<void> {
    if (this.position >= position || this.broken) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ position, resolve }));
  }

  findById(id: string): Recorded | undefined {
    return this.byId.get(id);
  }

  ofCall(callId: string): Recorded[] {
    return (this.byCall.get(callId) ?? []).map((seq) => this.events[seq - 1]!);
  }

  lastOf<T extends EventType>(type: T): Recorded<T> | undefined {
    const seq = this.latest.get(type);
    return seq === undefined ? undefined : (this.events[seq - 1] as Recorded<T>);
  }

  hashAt(seq: number): string | undefined {
    return seq === 0 ? GENESIS_HASH : this.events[seq - 1]?.hash;
  }

  tree(): TransparencyTree {
    return new TransparencyTree(this.nodes, (seq) => this.events[seq - 1]?.hash, {
      size: this.frontier.size,
      origin: this.origin,
    });
  }

  /** The batch at `position`, the next one this copy needs, is gone from the stream: the copy stops here. */
  lost(position: number): void {
    if (this.broken || position !== this.position + 1) return;
    const seq = this.head().seq + 1;
    this.broken = {
      seq,
      kind: 'deleted',
      reason: `seq ${seq} is missing: the stream's message at position ${position} (the batch after seq ${seq - 1}) was deleted from the stream; the log stops before it`,
    };
    this.release(true);
  }

  /** Refuses a write on a copy that stopped at a batch that does not carry on the chain. */
  assertWritable(): void {
    if (this.broken) throw new FactorlyError('LOG_CORRUPT', this.broken.reason);
  }

  private decode(position: number, payload: Uint8Array): Recorded[] {
    let events: Recorded[];
    try {
      events = JSON.parse(Buffer.from(payload).toString('utf8')) as Recorded[];
      if (!Array.isArray(events) || events.length === 0)
        throw new FactorlyError('LOG_CORRUPT', 'not a non-empty array of events');
    } catch (error) {
      const reason = `the stream's batch at position ${position} is not a batch of events (${(error as Error).message}): the log stops before it`;
      this.broken = { seq: this.head().seq + 1, kind: 'corrupt', reason };
      return [];
    }
    let { seq, hash } = this.head();
    for (const event of events) {
      const bad =
        event?.seq !== seq + 1
          ? `has seq ${event?.seq}, expected ${seq + 1}`
          : event.prevHash !== hash
            ? 'does not chain to the event before it'
            : !hashesTo(event)
              ? 'does not hash to its recorded hash'
              : undefined;
      if (bad) {
        const reason = `event ${event?.seq} in the stream's batch at position ${position} ${bad}: the log stops before it`;
        this.broken = { seq: seq + 1, kind: event?.seq > seq + 1 ? 'deleted' : 'modified', reason };
        return [];
      }
      seq = event.seq;
      hash = event.hash;
    }
    return events;
  }

  private index(event: Recorded): void {
    this.events.push(event);
    this.byId.set(event.id, event);
    const callId = callIdOf(event);
    if (callId !== undefined) {
      const seqs = this.byCall.get(callId);
      if (seqs) seqs.push(event.seq);
      else this.byCall.set(callId, [event.seq]);
    }
    this.latest.set(event.type, event.seq);
    const change = inflightChange(event);
    if (change?.entry) this.open.set(change.key, change.entry);
    else if (change) this.open.delete(change.key);
  }

  inflight(): Inflight {
    const entries = [...this.open].map(([key, value]) => ({ key, value }));
    return listInflight(
      entries,
      (writer) => (this.findById(writerEventId(writer)) as Recorded<'writer.started'> | undefined)?.data,
    );
  }

  private release(all = false): void {
    for (let i = this.waiters.length - 1; i >= 0; i -= 1) {
      const waiter = this.waiters[i]!;
      if (all || waiter.position <= this.position) {
        this.waiters.splice(i, 1);
        waiter.resolve();
      }
    }
  }
}

function hashesTo(event: Recorded): boolean {
  const { hash, ...envelope } = event;
  return hashEnvelope(envelope) === hash;
}
