import { GENESIS_HASH, type Recorded } from './envelope.js';
import { hashEnvelope, sha256Hex } from './hash.js';

export type BreakKind = 'modified' | 'deleted' | 'inserted' | 'reordered' | 'corrupt' | 'truncated';

export interface ChainBreak {
  seq: number;
  kind: BreakKind;
  reason: string;
}

/**
 * One position of a log as read: `key` is where the store keeps it (the LMDB key, a line of an
 * export), when the store has keys of its own; the event, or why it could not be read.
 */
export interface ChainEntry {
  key?: number;
  event?: Recorded;
  error?: string;
  /** The entry's stored text, when the store keeps the canonical JSON it was sealed as (see `storedHash`). */
  text?: string;
}

const HASH_FIELD = ',"hash":"';

/**
 * The chain hash of an event from the text it is stored as, when that text is the canonical JSON it
 * was sealed as (what every factorly store writes): sha256 of its prevHash followed by the text with
 * the `hash` member cut out, with no serialising again. A match means the stored text is exactly what
 * the writer hashed (anything else would be a SHA-256 collision); a text stored some other way gives
 * undefined or no match, and the canonical form decides (`hashEnvelope`).
 */
export function storedHash(text: string | undefined, event: Recorded): string | undefined {
  if (text === undefined || typeof event.hash !== 'string' || typeof event.prevHash !== 'string') return undefined;
  // The envelope's own `hash` is its last one: the members after it (id, prevHash, seq, type, v) hold no object.
  const at = text.lastIndexOf(HASH_FIELD);
  const end = at + HASH_FIELD.length + event.hash.length;
  if (at < 0 || text.charCodeAt(end) !== 0x22 || text.slice(at + HASH_FIELD.length, end) !== event.hash)
    return undefined;
  return sha256Hex(event.prevHash + text.slice(0, at) + text.slice(end + 1));
}

/**
 * Walks a chain one position at a time, in constant memory, and names the first position that
 * does not hold. It keeps the two previous hashes, which is enough to tell an insertion (the event
 * after it still points past it) from a replacement or a move. A position is judged before anything
 * after it is read; the next entry is read only to tell a deletion from a swap, so an unreadable
 * event never hides a break before it.
 */
export class ChainChecker {
  verified = 0;
  private previous: { seq: number; hash: string | undefined } = { seq: 0, hash: GENESIS_HASH };
  private beforePrevious: string | undefined;

  /** Starts mid-chain after `seq` (whose hash is unknown when checking one chunk of a larger log). */
  static after(seq: number, hash: string | undefined, beforeHash?: string): ChainChecker {
    const checker = new ChainChecker();
    checker.previous = { seq, hash };
    checker.beforePrevious = beforeHash;
    return checker;
  }

  get last(): { seq: number; hash: string | undefined } {
    return this.previous;
  }

  check(entry: ChainEntry, peek: () => ChainEntry | undefined): ChainBreak | undefined {
    const expected = this.previous.seq + 1;
    const at = entry.key ?? entry.event?.seq ?? expected;
    if (at > expected) return this.gap(expected, at, peek);
    if (entry.error !== undefined || !entry.event)
      return { seq: at, kind: 'corrupt', reason: entry.error ?? 'unreadable' };
    const event = entry.event;
    if (at < expected || event.seq !== at) return this.misplaced(expected, event);
    // hashEnvelope leaves `hash` out itself.
    if (storedHash(entry.text, event) !== event.hash && hashEnvelope(event) !== event.hash)
      return this.changed(expected, event);
    if (this.previous.hash !== undefined && event.prevHash !== this.previous.hash)
      return this.relinked(expected, event);
    this.beforePrevious = this.previous.hash;
    this.previous = { seq: event.seq, hash: event.hash };
    this.verified += 1;
    return undefined;
  }

  /** Nothing at `expected`: deleted, unless it turns up right after (two events swapped). */
  private gap(expected: number, at: number, peek: () => ChainEntry | undefined): ChainBreak {
    const next = peek();
    const swapped = next?.event?.seq === expected && next.key === undefined;
    return { seq: expected, kind: swapped ? 'reordered' : 'deleted', reason: `expected seq ${expected}, found ${at}` };
  }

  /** An event stored at `expected` that says it belongs elsewhere. */
  private misplaced(expected: number, event: Recorded): ChainBreak {
    if (event.seq === expected - 1 && this.beforePrevious !== undefined && event.prevHash === this.beforePrevious)
      return this.inserted(expected);
    return { seq: expected, kind: 'reordered', reason: `the event at seq ${expected} says it is seq ${event.seq}` };
  }

  /** Content that does not match its hash: modified, or renumbered to make room for an insertion. */
  private changed(expected: number, event: Recorded): ChainBreak {
    const { hash, ...rest } = event;
    const renumbered =
      this.beforePrevious !== undefined &&
      event.prevHash === this.beforePrevious &&
      hashEnvelope({ ...rest, seq: expected - 1 } as Omit<Recorded, 'hash'>) === hash;
    if (renumbered) return this.inserted(expected);
    return { seq: expected, kind: 'modified', reason: 'content does not match its hash' };
  }

  /** An intact event whose prevHash is not its predecessor's hash. */
  private relinked(expected: number, event: Recorded): ChainBreak {
    if (this.beforePrevious !== undefined && event.prevHash === this.beforePrevious) return this.inserted(expected);
    // The predecessor verified on its own, yet its successor points elsewhere: it was replaced.
    this.verified = Math.max(0, this.verified - 1);
    return {
      seq: expected - 1,
      kind: 'modified',
      reason: `event ${expected - 1} was replaced: event ${expected} points to ${event.prevHash.slice(0, 12)}… as its predecessor`,
    };
  }

  /** The event before `expected` was slipped in: the one at `expected` still points past it. */
  private inserted(expected: number): ChainBreak {
    this.verified = Math.max(0, this.verified - 1);
    return {
      seq: expected - 1,
      kind: 'inserted',
      reason: `event ${expected - 1} was inserted: event ${expected} points past it to event ${expected - 2}`,
    };
  }
}
