import type { NewEvent, Recorded } from './envelope.js';
import { endsCall } from './call-events.js';

/** Batches remembered at most (the oldest are dropped: their calls then stay open on the stream). */
const KEPT = 256;

/** How the log answers what `closing` asks: the event at a seq, and a call's events (read from the stream when not at hand). */
export interface SettledReader {
  eventAt(seq: number): Promise<Recorded | undefined>;
  callEvents(callId: string): Promise<Recorded[]>;
}

/**
 * Batches a node sent without ever hearing whether the stream stored them (it gave up waiting: the
 * calls in them were refused before their tools ran). A stream that lost its quorum may still store
 * one once it is back; its calls would then read as running forever. So each one found on the
 * stream later gets its calls closed (`call.interrupted`, saying they were refused), in the node's
 * next write.
 */
export class UnsettledBatches {
  private batches: Recorded[][] = [];

  add(batch: Recorded[]): void {
    if (!batch.some((event) => event.type === 'call.requested')) return;
    this.batches.push(batch);
    if (this.batches.length > KEPT) this.batches.shift();
  }

  /** The events closing the calls of batches that landed after all (each batch is settled once found). */
  async closing(log: SettledReader): Promise<NewEvent[]> {
    if (this.batches.length === 0) return [];
    const events: NewEvent[] = [];
    const kept: Recorded[][] = [];
    for (const batch of this.batches) {
      const last = batch.at(-1)!;
      // A batch is stored where it was sealed, or not at all: its last event at its seq tells.
      if ((await log.eventAt(last.seq))?.hash !== last.hash) {
        kept.push(batch);
        continue;
      }
      for (const event of batch) {
        if (event.type !== 'call.requested') continue;
        const { callId } = event.data;
        const seen = await log.callEvents(callId);
        if (seen.some((later) => endsCall(later.type))) continue;
        const reason =
          'refused before the tool ran: the event log stored the request only after the call had given up waiting for it';
        events.push({ id: `refused-${callId}`, type: 'call.interrupted', data: { callId, reason } });
      }
    }
    this.batches = kept;
    return events;
  }
}
