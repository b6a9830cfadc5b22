/**
 * A batch larger than one stream message may hold (`BatchStream.maxPayload`) travels as fragments
 * and a commit, each a message of its own, each appended only after the one before it (each names
 * the position before it as `after`), so they sit at consecutive positions:
 *
 *     fragment  {"fragment":{"batch":<id>,"part":<i>,"parts":<k>}}\n<bytes of part i>
 *     commit    {"commit":{"batch":<id>,"parts":<k>,"bytes":<n>,"seqs":[<first>,<last>]}}
 *
 * A whole batch is a JSON array, so its first byte (`[`) tells it from these (`{`). The batch counts
 * at its commit's position, once the commit is stored: its bytes are its fragments' in order, the
 * `k` positions right before the commit. Fragments no commit follows (a writer killed between two,
 * or one that lost the race for the next position) hold nothing: readers skip them, and since
 * they take positions like any message, skipping them is no gap. `seqs` lets a reader looking for
 * an event place the batch without reading its fragments; the events themselves are checked by the
 * chain, like any batch's. There is no other checksum: a changed fragment is a changed event.
 */

export type StreamMessage =
  | { kind: 'batch' }
  | { kind: 'fragment'; batch: string; part: number; parts: number; chunk: Uint8Array }
  | { kind: 'commit'; batch: string; parts: number; bytes: number; seqs: [number, number] }
  | { kind: 'unknown'; why: string };

/** What one stored message is. */
export function messageOf(payload: Uint8Array): StreamMessage {
  if (payload[0] === 0x5b) return { kind: 'batch' };
  if (payload[0] !== 0x7b) return { kind: 'unknown', why: 'neither a batch of events nor a fragment of one' };
  const end = payload.indexOf(0x0a);
  let header: { fragment?: Record<string, unknown>; commit?: Record<string, unknown> };
  try {
    header = JSON.parse(Buffer.from(payload.subarray(0, end < 0 ? payload.length : end)).toString('utf8')) as never;
  } catch (error) {
    return { kind: 'unknown', why: `not a batch of events (${(error as Error).message})` };
  }
  const { fragment, commit } = header ?? {};
  const whole = (value: unknown, min: number): value is number => Number.isSafeInteger(value) && Number(value) >= min;
  if (fragment && end >= 0) {
    const { batch, part, parts } = fragment;
    if (typeof batch === 'string' && whole(parts, 1) && whole(part, 0) && part < parts)
      return { kind: 'fragment', batch, part, parts, chunk: payload.subarray(end + 1) };
  }
  if (commit && end < 0) {
    const { batch, parts, bytes, seqs } = commit;
    const range = Array.isArray(seqs) && seqs.length === 2 && whole(seqs[0], 1) && whole(seqs[1], seqs[0] as number);
    if (typeof batch === 'string' && whole(parts, 1) && whole(bytes, 0) && range)
      return { kind: 'commit', batch, parts, bytes, seqs: seqs as [number, number] };
  }
  return { kind: 'unknown', why: 'a fragment or commit with a header that does not say which batch and part it is' };
}

export interface OutgoingMessage {
  payload: Uint8Array;
  /** Its id on the stream (idempotent appends): a fragment's names the position its run starts after, so a run sent again after a conflict is a new one. */
  id: string;
}

/**
 * The fragments and commit of batch `id` (`payload`, events `seqs`), each at most `room` bytes, to
 * be appended one after the other from position `after`.
 */
export function splitBatch(
  payload: Uint8Array,
  id: string,
  after: number,
  room: number,
  seqs: [number, number],
): OutgoingMessage[] {
  const header = (part: number, parts: number): Buffer =>
    Buffer.from(`${JSON.stringify({ fragment: { batch: id, part, parts } })}\n`, 'utf8');
  let parts = 1;
  let chunk = 0;
  // The header grows with the number of parts, which depends on the room left beside it.
  for (let tries = 0; tries < 8; tries += 1) {
    chunk = room - header(parts - 1, parts).length;
    if (chunk < 1) throw new RangeError(`a stream message of ${room} bytes cannot hold a fragment of batch ${id}`);
    const needed = Math.ceil(payload.length / chunk);
    if (needed === parts) break;
    parts = needed;
  }
  const messages: OutgoingMessage[] = [];
  for (let part = 0; part < parts; part += 1) {
    const bytes = payload.subarray(part * chunk, (part + 1) * chunk);
    messages.push({ payload: Buffer.concat([header(part, parts), bytes]), id: `${id}:${after}:${part}` });
  }
  const commit = { commit: { batch: id, parts, bytes: payload.length, seqs } };
  messages.push({ payload: Buffer.from(JSON.stringify(commit), 'utf8'), id });
  return messages;
}

/** What a reader takes from one message, in stream order. */
export type Taken =
  /** A batch complete at this message: its bytes, and the first position it spans. */
  | { payload: Uint8Array; from: number }
  /** A message that is none of the kinds a stream holds, or a commit without its fragments right before it. */
  | { corrupt: string }
  /** Nothing yet (a fragment), or nothing at all (a fragment no commit will follow). */
  | undefined;

interface Run {
  batch: string;
  parts: number;
  from: number;
  chunks: Uint8Array[];
}

/**
 * Reads a stream's messages in order, from the first position of a batch: whole batches as they
 * come, fragments held until their commit (and dropped when anything else comes first).
 */
export class FragmentRuns {
  private run?: Run;

  take(position: number, payload: Uint8Array): Taken {
    const message = messageOf(payload);
    if (message.kind === 'batch') {
      this.run = undefined;
      return { payload, from: position };
    }
    if (message.kind === 'fragment') {
      this.hold(position, message);
      return undefined;
    }
    const run = this.run;
    this.run = undefined;
    if (message.kind === 'unknown')
      return { corrupt: `the stream's message at position ${position} is ${message.why}` };
    if (
      !run ||
      run.batch !== message.batch ||
      run.chunks.length !== message.parts ||
      run.from + message.parts !== position
    )
      return {
        corrupt: `the stream's commit at position ${position} does not follow the ${message.parts} fragments of its batch`,
      };
    const whole = Buffer.concat(run.chunks);
    if (whole.length !== message.bytes)
      return {
        corrupt: `the stream's commit at position ${position} counts ${message.bytes} bytes, its fragments hold ${whole.length}`,
      };
    return { payload: whole, from: run.from };
  }

  /** The positions of fragments held for a commit that may still come (none: undefined). */
  get pendingFrom(): number | undefined {
    return this.run?.from;
  }

  private hold(position: number, fragment: Extract<StreamMessage, { kind: 'fragment' }>): void {
    const run = this.run;
    const next =
      run !== undefined &&
      run.batch === fragment.batch &&
      run.parts === fragment.parts &&
      run.chunks.length === fragment.part &&
      run.from + fragment.part === position;
    if (next) run.chunks.push(fragment.chunk);
    // A first part starts a run; any other that does not carry one on belongs to a run no commit will complete.
    else
      this.run =
        fragment.part === 0
          ? { batch: fragment.batch, parts: fragment.parts, from: position, chunks: [fragment.chunk] }
          : undefined;
  }
}
