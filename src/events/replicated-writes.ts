import { setTimeout as delay } from 'node:timers/promises';
import { FactorlyError, messageOf } from '../base/errors.js';
import { callIdOf, resolveConflict, sealBatch } from './append-batch.js';
import { splitBatch } from './batch-fragments.js';
import type { BatchMirror } from './batch-mirror.js';
import { encodeBatch, type BatchAppended, type BatchStream } from './batch-stream.js';
import { RETRY_MS, within } from './call-deadlines.js';
import type { NewEvent, Recorded } from './envelope.js';
import type { AppendOptions, LogHead } from './log.js';
import type { ReplicatedFolds } from './replicated-folds.js';
import type { StreamReader } from './stream-reader.js';
import { UnsettledBatches } from './unsettled-batches.js';

/** How long a node may lag behind the stream's last message, while catching up, before it follows the stream anew. */
const STALLED_MS = 1000;

/** When a write gives up, and what it says then. */
interface Until {
  deadline: number;
  late: () => Error;
}

/** What the writer shares with the log it writes for. */
export interface WriterParts {
  stream: BatchStream;
  mirror: BatchMirror;
  reader: StreamReader;
  folds: ReplicatedFolds;
  clock: () => Date;
  /** Joins the stream (at most until `deadline`). */
  ready(deadline: number): Promise<void>;
  /** Follows the stream anew (a follower that stopped delivering). */
  follow(): void;
  followFailure(): unknown;
  /** Events this node stored, for the log's subscribers. */
  stored(events: readonly Recorded[]): void;
  unanswered(what: string, error: unknown): FactorlyError;
  closed(): boolean;
}

/**
 * The appends of one node to a shared stream: each batch sealed on the head this node knows and
 * stored only if the stream has not moved since (`after`), so two nodes never fork the chain. When
 * another node came first the batch is sealed again on the new head, and a conditional append
 * (`expectedSeq`) sees the events since: decided again by its `onConflict`, or refused with
 * `LOG_CONFLICT`, as on a single node. A batch larger than one message may be goes as fragments
 * and a commit (`splitBatch`). Every wait keeps the deadline it is given (the call's).
 */
export class BatchWriter {
  private readonly unsettled = new UnsettledBatches();

  constructor(private readonly parts: WriterParts) {}

  async append(
    events: readonly NewEvent[],
    options: AppendOptions,
    deadline: number,
    late: () => Error,
  ): Promise<Recorded[]> {
    if (Date.now() >= deadline) throw late();
    await this.parts.ready(deadline);
    const closing = await this.unsettled.closing({
      eventAt: (seq) => this.parts.reader.eventAt(seq),
      callEvents: (callId) => this.callEvents(callId),
    });
    if (closing.length > 0) await this.write(closing, {}, deadline, late);
    return this.write(events, options, deadline, late);
  }

  /** The event whose writer chose the id `id`, as stored (looked up beside the stream, checked against the event). */
  async named(id: string): Promise<Recorded | undefined> {
    const seq = await this.parts.folds.ids.seqOfId(id);
    const event = seq === undefined ? undefined : await this.parts.reader.eventAt(seq);
    return event?.id === id ? event : undefined;
  }

  /** Every event of call `callId`, in seq order. */
  async callEvents(callId: string): Promise<Recorded[]> {
    const seqs = await this.parts.folds.callSeqs(callId, this.parts.mirror.head().seq);
    const events = await Promise.all(seqs.map((seq) => this.parts.reader.eventAt(seq)));
    return events.filter((event): event is Recorded => event !== undefined && callIdOf(event) === callId);
  }

  /** Waits until this node holds every message the stream held when asked. */
  async catchUp(deadline: number): Promise<void> {
    const { stream, mirror } = this.parts;
    for (;;) {
      let behind: unknown;
      try {
        const last = await stream.last();
        const wait = Math.min(Math.max(deadline - Date.now(), 0), STALLED_MS);
        if ((await Promise.race([mirror.reached(last).then(() => 'ok'), delay(wait, 'late', { ref: false })])) === 'ok')
          return;
        // Nothing more comes when the message this node needs next was deleted (the stream's last, say).
        if ((await stream.firstLost?.(mirror.position)) === mirror.position + 1) {
          mirror.lost(mirror.position + 1);
          return;
        }
        // A follower that stopped delivering without failing (its server went away): followed anew.
        this.parts.follow();
        const failure = this.parts.followFailure();
        const why = failure === undefined ? '' : `: ${messageOf(failure)}`;
        behind = `this node did not reach position ${last} of the stream (it holds ${mirror.position})${why}`;
      } catch (error) {
        behind = error;
      }
      if (Date.now() >= deadline || this.parts.closed()) throw this.parts.unanswered('read', behind);
      await delay(RETRY_MS);
    }
  }

  private async write(
    events: readonly NewEvent[],
    options: AppendOptions,
    deadline: number,
    late: () => Error,
  ): Promise<Recorded[]> {
    const { mirror, folds, reader } = this.parts;
    for (;;) {
      mirror.assertWritable();
      // A read that met a batch the stream lost, or one that does not carry on the chain: no write goes on it.
      if (reader.broken) throw new FactorlyError('LOG_CORRUPT', reader.broken.reason);
      const head = mirror.head();
      // Events other nodes appended since: folded before the conflict handler decides against the projections.
      await within(folds.upTo(head.seq), deadline, late);
      const since = await within(this.since(options, head), deadline, late);
      const batch = resolveConflict(events, options, head, (seq) => since.filter((event) => event.seq >= seq));
      const named = await within(this.namedIn(batch.events), deadline, late);
      // Moved on while looking: sealed again on the new head.
      if (mirror.head().seq !== head.seq) continue;
      const sealed = sealBatch(batch.events, batch.options, {
        head,
        findById: (id) => named.get(id),
        now: this.parts.clock(),
      });
      if (sealed.fresh.length === 0) return sealed.results;
      const after = mirror.position;
      const fresh = sealed.fresh.map(({ event }) => event);
      const payload = encodeBatch(sealed.fresh.map(({ stored }) => stored));
      // The batch's last chain hash names it: the same batch sent again is the same, any other is not.
      const last = fresh.at(-1)!;
      const outcome = await this.send(payload, last.hash, after, { deadline, late }, [fresh[0]!.seq, last.seq]).catch(
        (error: unknown) => {
          this.unsettled.add(fresh);
          throw error;
        },
      );
      if ('conflict' in outcome || outcome.duplicate) {
        await this.catchUp(deadline);
        // An earlier try whose answer was lost (beyond the stream's duplicate window) may be the one stored.
        if ((await reader.eventAt(last.seq))?.hash === last.hash) return sealed.results;
        continue;
      }
      this.parts.stored(mirror.applyWritten(after, outcome.position, fresh, payload.length));
      return sealed.results;
    }
  }

  /** The events since a conditional append's `expectedSeq`, for its conflict handler (none when it will not be asked). */
  private async since(options: AppendOptions, head: LogHead): Promise<Recorded[]> {
    const { expectedSeq, onConflict } = options;
    if (onConflict === undefined || expectedSeq === undefined || expectedSeq >= head.seq) return [];
    const events: Recorded[] = [];
    for await (const event of this.parts.reader.events(expectedSeq + 1, head.seq)) events.push(event);
    return events;
  }

  /** The stored events of the ids the writer chose in `events` (an idempotent append returns them). */
  private async namedIn(events: readonly NewEvent[]): Promise<Map<string, Recorded>> {
    const ids = [...new Set(events.flatMap((event) => (event.id === undefined ? [] : [event.id])))];
    const found = await Promise.all(ids.map((id) => this.named(id)));
    return new Map(found.flatMap((event) => (event ? [[event.id, event] as const] : [])));
  }

  /** One batch to the stream: as one message when it fits, else as its fragments and commit. */
  private async send(
    payload: Uint8Array,
    id: string,
    after: number,
    until: Until,
    seqs: [number, number],
  ): Promise<BatchAppended> {
    const room = await within(this.parts.stream.maxPayload(), until.deadline, until.late);
    if (payload.length <= room) return this.sendOne(payload, id, after, until);
    let outcome: BatchAppended = { conflict: true };
    let position = after;
    for (const message of splitBatch(payload, id, after, room, seqs)) {
      outcome = await this.sendOne(message.payload, message.id, position, until);
      // Fragments stored before a conflict stay behind with no commit: every reader skips them.
      if ('conflict' in outcome) return outcome;
      position = outcome.position;
    }
    return outcome;
  }

  /** One message, tried again (same id, same position) while the stream does not answer. */
  private async sendOne(payload: Uint8Array, id: string, after: number, until: Until): Promise<BatchAppended> {
    for (;;) {
      try {
        // Given up at the deadline even while the stream still has it: a batch stored after all is settled later.
        return await within(this.parts.stream.append(payload, id, after), until.deadline, until.late);
      } catch (error) {
        // The stream's own verdict (a setting it refuses) is final; anything else may pass (an election, a reconnect).
        if (FactorlyError.isInstance(error) || Date.now() >= until.deadline || this.parts.closed())
          throw this.parts.unanswered('append to', error);
        await delay(RETRY_MS);
      }
    }
  }
}
