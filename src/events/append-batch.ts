import { randomUUID } from 'node:crypto';
import { FactorlyError } from '../base/errors.js';
import { eventVersion } from './plugin-event-types.js';
import { GENESIS_HASH, type NewEvent, type Recorded } from './envelope.js';
import { sealEnvelope } from './hash.js';
import type { AppendOptions, LogHead } from './log.js';

/** What an implementation can answer inside its write transaction. */
export interface SealContext {
  head: LogHead;
  findById(id: string): Recorded | undefined;
  now: Date;
}

export interface SealedBatch {
  /** Events to return to the caller, in input order (existing ones for repeated ids). */
  results: Recorded[];
  /** Only the events that must be written, each with its stored form (canonical JSON, hash included). */
  fresh: SealedEvent[];
}

export interface SealedEvent {
  event: Recorded;
  stored: string;
  /** The writer chose the id (an idempotent append): the log must be able to find it by id. */
  named: boolean;
}

/**
 * Turns new events into chained envelopes on top of `head`. Shared by every `EventLog`
 * implementation so the chain, versioning and idempotency rules exist once.
 */
export function sealBatch(events: readonly NewEvent[], options: AppendOptions, ctx: SealContext): SealedBatch {
  const results: Recorded[] = [];
  const fresh: SealedEvent[] = [];
  const seen = new Map<string, Recorded>();
  let { seq, hash } = ctx.head;
  const at = ctx.now.toISOString();
  for (const event of events) {
    const existing = event.id === undefined ? undefined : (seen.get(event.id) ?? ctx.findById(event.id));
    if (existing) {
      results.push(existing);
      continue;
    }
    if (fresh.length === 0) checkExpected(options, ctx.head);
    seq += 1;
    const envelope = {
      seq,
      id: event.id ?? randomUUID(),
      type: event.type,
      v: eventVersion(event.type),
      at,
      data: event.data,
      prevHash: hash,
    } as Omit<Recorded, 'hash'>;
    const sealed = sealEnvelope(envelope);
    hash = sealed.hash;
    const recorded = envelope as Recorded;
    recorded.hash = hash;
    seen.set(recorded.id, recorded);
    fresh.push({ event: recorded, stored: sealed.stored, named: event.id !== undefined });
    results.push(recorded);
  }
  return { results, fresh };
}

function checkExpected(options: AppendOptions, head: LogHead): void {
  if (options.expectedSeq !== undefined && options.expectedSeq !== head.seq) {
    throw new FactorlyError(
      'LOG_CONFLICT',
      `event log moved on: expected last seq ${options.expectedSeq}, found ${head.seq}`,
      { data: { expectedSeq: options.expectedSeq, actualSeq: head.seq } },
    );
  }
}

/**
 * The events to seal on top of `head`: the ones given, or, when the log moved past `expectedSeq`
 * and the writer passed an `onConflict`, the ones it decides against the events since (read by
 * `readFrom`, inside the implementation's write). Sealing then checks the new head.
 */
export function resolveConflict(
  events: readonly NewEvent[],
  options: AppendOptions,
  head: LogHead,
  readFrom: (seq: number) => readonly Recorded[],
): { events: readonly NewEvent[]; options: AppendOptions } {
  const { expectedSeq, onConflict } = options;
  if (onConflict === undefined || expectedSeq === undefined || expectedSeq >= head.seq) return { events, options };
  const again = onConflict(head.seq, readFrom);
  return again === undefined
    ? { events, options }
    : { events: again, options: { ...options, expectedSeq: head.seq, onConflict: undefined } };
}

export const EMPTY_HEAD: LogHead = { seq: 0, hash: GENESIS_HASH };

/** `data.callId` of an event, when it has one (the index key for `readCall`). */
export function callIdOf(event: Recorded): string | undefined {
  const data = event.data as { callId?: unknown };
  return typeof data.callId === 'string' ? data.callId : undefined;
}

/** Dashes of a v4 UUID (`xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx`), by position. */
const DASHES = new Set([8, 13, 18, 23]);

/**
 * Whether an id has the form of the ones the log generates (a random v4 UUID), which are never
 * looked up and so not indexed: verification expects an `ids` entry for every other id. A writer
 * that chooses a UUID of that form for an event still gets it indexed; verification then checks
 * that its entry points to it, but cannot tell it missing.
 */
export function isGeneratedId(id: string): boolean {
  // By hand rather than with a regular expression: verification asks it of every event.
  if (id.length !== 36 || id.charCodeAt(14) !== 0x34) return false;
  const variant = id.charCodeAt(19);
  if (variant !== 0x38 && variant !== 0x39 && variant !== 0x61 && variant !== 0x62) return false;
  for (let i = 0; i < 36; i += 1) {
    const code = id.charCodeAt(i);
    if (DASHES.has(i) ? code !== 0x2d : !((code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x66)))
      return false;
  }
  return true;
}
