import { EMPTY_HEAD } from './append-batch.js';
import { checkedBatch, deletedBatch } from './batch-events.js';
import { FragmentRuns, messageOf } from './batch-fragments.js';
import type { BatchStream, StoredBatch } from './batch-stream.js';
import type { ChainBreak } from './chain-check.js';
import type { Recorded } from './envelope.js';
import type { BatchPlace, EventCache } from './event-cache.js';
import type { LogHead } from './log.js';

/** What the stream holds up to now, as this node knows it: its last position, and the head of the chain there. */
export interface StreamTip {
  position: number;
  head: LogHead;
}

/** Where a node starts on a stream it has not read (see `findTip`). */
export interface FoundTip {
  tip: StreamTip;
  /** Fragments after the last batch that its commit may still complete (a writer sending them now). */
  pending: StoredBatch[];
  /** Where the log stops short of the stream: a deleted message, or one that is no batch. */
  broken?: ChainBreak;
}

/**
 * The end of the stream as a node that joins it finds it, reading backwards from the last position
 * only as far as the last batch and the one before it: the chain's head is that batch's last event,
 * its events checked on their own and as the chain's next after the batch before. The trailing
 * fragments of a batch not committed yet are kept for its commit; any other fragment met on the way
 * is one no commit followed, and is passed over. A position the stream no longer holds (`lost`, the
 * first one, from `BatchStream.firstLost`, or one found missing here), a message that is no batch,
 * or a last batch that does not carry on the chain is where the log stops: the tip is then the last
 * batch before it.
 */
export async function findTip(inner: BatchStream, cache: EventCache): Promise<FoundTip> {
  const stream = remembering(inner);
  const last = await stream.last();
  const lost = await stream.firstLost?.(0);
  const end = lost === undefined ? last : lost - 1;
  const pending = lost === undefined ? await trailingRun(stream, end) : [];
  const found = await batchBefore(stream, end - pending.length);
  const { batch, events, broken: unlinked } = await linkedTip(stream, found.batch, cache);
  if (batch && events.length > 0)
    cache.add(
      { from: batch.from, to: batch.at, firstSeq: events[0]!.seq, lastSeq: events.at(-1)!.seq },
      events,
      batch.payload.length,
    );
  const head = events.length > 0 ? headOf(events) : EMPTY_HEAD;
  const missing = lost ?? found.missing;
  const corrupt =
    found.corrupt === undefined ? undefined : { seq: head.seq + 1, kind: 'corrupt' as const, reason: found.corrupt };
  const broken = missing !== undefined ? deletedBatch(missing, head.seq) : (unlinked ?? corrupt);
  return { tip: { position: broken === undefined ? last : (batch?.at ?? 0), head }, pending, broken };
}

/** The last batch, when it carries on the chain from the batch before it; else that one, and where the chain breaks. */
async function linkedTip(
  stream: TipSource,
  batch: FoundBatch | undefined,
  cache: EventCache,
): Promise<{ batch?: FoundBatch; events: Recorded[]; broken?: ChainBreak }> {
  if (!batch) return { events: [] };
  const previous = (await batchBefore(stream, batch.from - 1)).batch;
  const before = previous && checkedBatch(previous.at, previous.payload);
  const beforeEvents = before && 'events' in before ? before.events : [];
  const link = !previous ? EMPTY_HEAD : beforeEvents.length > 0 ? headOf(beforeEvents) : undefined;
  const checked = checkedBatch(batch.at, batch.payload, link);
  if (previous && beforeEvents.length > 0)
    cache.add(placeOf(previous, beforeEvents), beforeEvents, previous.payload.length);
  if ('events' in checked) return { batch, events: checked.events };
  return { batch: previous, events: beforeEvents, broken: checked.broken };
}

const headOf = (events: readonly Recorded[]): LogHead => ({ seq: events.at(-1)!.seq, hash: events.at(-1)!.hash });

const placeOf = (batch: FoundBatch, events: readonly Recorded[]): BatchPlace => ({
  from: batch.from,
  to: batch.at,
  firstSeq: events[0]!.seq,
  lastSeq: events.at(-1)!.seq,
});

/** What the tip is looked for in. */
type TipSource = Pick<BatchStream, 'last' | 'get' | 'firstLost'>;

/** The stream, each message read once while the tip is looked for. */
function remembering(stream: BatchStream): TipSource {
  const read = new Map<number, Promise<StoredBatch | undefined>>();
  return {
    last: () => stream.last(),
    firstLost: stream.firstLost && ((after) => stream.firstLost!(after)),
    get: (position) => {
      if (!read.has(position)) read.set(position, stream.get(position));
      return read.get(position)!;
    },
  };
}

/** The fragments at the end of the stream, from a first part on, that a commit may still follow. */
async function trailingRun(stream: TipSource, last: number): Promise<StoredBatch[]> {
  const tail = last > 0 ? await stream.get(last) : undefined;
  const message = tail && messageOf(tail.payload);
  if (message?.kind !== 'fragment') return [];
  const run: StoredBatch[] = [];
  for (let position = last - message.part; position <= last; position += 1) {
    const fragment = await stream.get(position);
    if (!fragment) return [];
    run.push(fragment);
  }
  // Held as a reader would: a run that does not hold together (parts missing, another batch's) is none.
  const runs = new FragmentRuns();
  for (const fragment of run) runs.take(fragment.position, fragment.payload);
  return runs.pendingFrom === run[0]!.position ? run : [];
}

/** A batch as stored: the positions it spans and its bytes (a fragmented one's put together). */
export interface FoundBatch {
  from: number;
  at: number;
  payload: Uint8Array;
}

/**
 * The last batch at or before `position`, walking back over fragments no commit followed, with the
 * first position after it the stream no longer holds, or the first message after it that is no batch.
 */
export async function batchBefore(
  stream: Pick<TipSource, 'get'>,
  position: number,
): Promise<{ batch?: FoundBatch; missing?: number; corrupt?: string }> {
  let missing: number | undefined;
  let corrupt: string | undefined;
  for (let at = position; at > 0; at -= 1) {
    const message = await stream.get(at);
    if (!message) {
      missing = at;
      continue;
    }
    const kind = messageOf(message.payload);
    if (kind.kind === 'fragment') continue;
    if (kind.kind === 'batch') return { batch: { from: at, at, payload: message.payload }, missing, corrupt };
    const payload = kind.kind === 'commit' ? await committed(stream, at, kind.parts, message) : undefined;
    if (payload) return { batch: { from: at - (kind as { parts: number }).parts, at, payload }, missing, corrupt };
    corrupt = `the stream's message at position ${at} is ${kind.kind === 'unknown' ? kind.why : 'a commit that does not follow its fragments'}: the log stops before it`;
    missing = undefined;
  }
  return { missing, corrupt };
}

/** The bytes of the batch committed at `position` (its `parts` fragments right before it), or undefined. */
async function committed(
  stream: Pick<TipSource, 'get'>,
  position: number,
  parts: number,
  commit: StoredBatch,
): Promise<Uint8Array | undefined> {
  const runs = new FragmentRuns();
  for (let at = position - parts; at < position; at += 1) {
    const fragment = await stream.get(at);
    if (!fragment) return undefined;
    runs.take(at, fragment.payload);
  }
  const taken = runs.take(position, commit.payload);
  return taken && 'payload' in taken ? taken.payload : undefined;
}
