// The event shape and append loops shared by the in-process variants and the forked workers.
import { now } from './stats.mjs';

export function makeEvent(prefix, i) {
  const callId = `${prefix}-${i}`;
  return { type: 'call.requested', data: { callId, rootId: callId, tool: 'echo', params: { n: i }, iface: 'cli' } };
}

export function makeBatch(prefix, start, size) {
  const batch = new Array(size);
  for (let j = 0; j < size; j += 1) batch[j] = makeEvent(prefix, start + j);
  return batch;
}

/**
 * The promise that resolves once everything appended so far is fsynced.
 *
 * lmdb-js opens environments with `overlappingSync` on by default (non-Windows): a write
 * promise resolves when the transaction is *committed* (visible to readers), and the fsync
 * happens afterwards, overlapping the next transactions. Durability is signalled by the
 * root database's `flushed` promise. `LmdbEventLog` keeps its root private (TypeScript-only
 * privacy), so the bench reaches it at runtime; returns undefined if it is not there.
 */
export function flushedOf(log) {
  const root = log.root;
  if (root && root.flushed && typeof root.flushed.then === 'function') return root.flushed;
  return undefined;
}

/**
 * Appends `total` events with `batchSize` events per awaited append and returns timings plus
 * the seq recorded for each event (index i → seq of `${prefix}-${i}`).
 * `flushEach` also waits for the fsync after every append (durable acknowledgement).
 */
export async function appendSequential(log, { prefix, total, batchSize, flushEach = false }) {
  const seqs = new Array(total);
  const latencies = [];
  const started = now();
  for (let i = 0; i < total; i += batchSize) {
    const size = Math.min(batchSize, total - i);
    const t0 = now();
    const recorded = await log.append(makeBatch(prefix, i, size));
    if (flushEach) await flushedOf(log);
    latencies.push(now() - t0);
    collect(seqs, recorded, prefix, i, size);
  }
  const committed = now();
  const flushed = flushedOf(log);
  if (flushed) await flushed;
  const durable = now();
  return {
    seqs,
    latencies,
    commitMs: committed - started,
    durableMs: durable - started,
    flushObserved: Boolean(flushed),
  };
}

/** `rounds` × `concurrency` single-event appends, all of a round issued before awaiting any. */
export async function appendConcurrent(log, { prefix, total, concurrency }) {
  const seqs = new Array(total);
  const latencies = [];
  const started = now();
  for (let i = 0; i < total; i += concurrency) {
    const size = Math.min(concurrency, total - i);
    const t0 = now();
    const pending = new Array(size);
    for (let j = 0; j < size; j += 1) pending[j] = log.append([makeEvent(prefix, i + j)]);
    const results = await Promise.all(pending);
    latencies.push(now() - t0);
    for (let j = 0; j < size; j += 1) collect(seqs, results[j], prefix, i + j, 1);
  }
  const committed = now();
  const flushed = flushedOf(log);
  if (flushed) await flushed;
  const durable = now();
  return {
    seqs,
    latencies,
    commitMs: committed - started,
    durableMs: durable - started,
    flushObserved: Boolean(flushed),
  };
}

function collect(seqs, recorded, prefix, start, size) {
  if (!Array.isArray(recorded) || recorded.length !== size) {
    throw new Error(
      `append of ${size} event(s) returned ${Array.isArray(recorded) ? recorded.length : typeof recorded}`,
    );
  }
  for (let j = 0; j < size; j += 1) {
    const event = recorded[j];
    const expected = `${prefix}-${start + j}`;
    if (event.data?.callId !== expected) {
      throw new Error(`append returned ${event.data?.callId} at position ${j}, expected ${expected}`);
    }
    seqs[start + j] = event.seq;
  }
}
