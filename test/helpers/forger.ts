import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { open, type Database } from 'lmdb';
import type { NewEvent, Recorded } from '../../src/events/envelope.js';
import { hashEnvelope } from '../../src/events/hash.js';
import { openLogDatabases, type LogDatabases } from '../../src/events/lmdb-layout.js';
import { LmdbDerived } from '../../src/events/lmdb-derived.js';
import { LmdbEventLog } from '../../src/events/lmdb-log.js';
import { snapshotDigest, type StoredSnapshot } from '../../src/events/snapshot-digest.js';
import { callIdOf } from '../../src/events/append-batch.js';
import { signCheckpoint } from '../../src/events/checkpoint.js';
import { newSignerKey, signerFromKey } from '../../src/events/signed-note.js';

/**
 * What someone with write access to `.factorly/events.lmdb` can do to it, using only LMDB and the
 * published envelope format: the tamper tests play this part.
 */
export function logFile(root: string): string {
  return join(root, '.factorly', 'events.lmdb');
}

export async function tamper(
  root: string,
  change: (dbs: LogDatabases, raw: ReturnType<typeof open>) => void,
): Promise<void> {
  const env = open({ path: logFile(root), compression: false });
  change(openLogDatabases(env), env);
  await env.close();
}

export function readAt(dbs: LogDatabases, seq: number): Recorded {
  return JSON.parse(dbs.events.getBinary(seq)!.toString('utf8')) as Recorded;
}

export function lastSeqOf(dbs: LogDatabases): number {
  return Number([...dbs.events.getKeys({ reverse: true, limit: 1 })][0]);
}

/** An event with its hash recomputed, so it verifies on its own. */
export function rehashed(event: Omit<Recorded, 'hash'> & { hash?: string }): Recorded {
  const { hash: _old, ...rest } = event;
  return { ...rest, hash: hashEnvelope(rest as Omit<Recorded, 'hash'>) } as Recorded;
}

/** Writes an event and the index entries a careful forger would add along with it. */
export function writeIndexed(dbs: LogDatabases, event: Recorded): void {
  dbs.events.putSync(event.seq, Buffer.from(JSON.stringify(event)));
  dbs.ids.putSync(event.id, event.seq);
  const callId = callIdOf(event);
  if (callId !== undefined) dbs.calls.putSync(callId, event.seq);
  dbs.latest.putSync(event.type, event.seq);
  dbs.meta.putSync('head', { seq: event.seq, hash: event.hash });
}

/** Removes the last `count` events with their index entries, and moves the head record back. */
export function cutTail(dbs: LogDatabases, count: number): void {
  const last = lastSeqOf(dbs);
  for (let seq = last; seq > last - count; seq -= 1) {
    const event = readAt(dbs, seq);
    dbs.events.removeSync(seq);
    dbs.ids.removeSync(event.id);
    const callId = callIdOf(event);
    if (callId !== undefined) dbs.calls.removeSync(callId, seq);
  }
  const head = readAt(dbs, last - count);
  dbs.meta.putSync('head', { seq: head.seq, hash: head.hash });
  for (const { key: type, value } of [...dbs.latest.getRange()]) {
    if (value <= head.seq) continue;
    let seq = head.seq;
    while (seq > 0 && readAt(dbs, seq).type !== type) seq -= 1;
    if (seq > 0) dbs.latest.putSync(type, seq);
    else dbs.latest.removeSync(type);
  }
}

/** Sets the Merkle tree's recorded size (its head lives at key 0 of the `tree` database). */
export function setTreeSize(raw: ReturnType<typeof open>, size: number): void {
  const tree = raw.openDB<Buffer, number>({ name: 'tree', encoding: 'binary' });
  const head = JSON.parse(tree.getBinary(0)!.toString('utf8')) as { size: number; origin: string };
  tree.putSync(0, Buffer.from(JSON.stringify({ ...head, size })));
}

/**
 * A consistent rewrite from seq `from`: a new file holding the same events before it (same ids,
 * times and data, so the same hashes) and `forge(event)` from it on, written through factorly's
 * own log code so its chain, indexes and tree all agree; it keeps the original log's origin, and
 * re-signs the log's own checkpoints after `from` with the project's key (it is in `.factorly/`).
 */
export async function rewriteFrom(
  root: string,
  from: number,
  forge: (event: Recorded) => Recorded,
  options: { ownKey?: string } = {},
): Promise<void> {
  const events: Recorded[] = [];
  const original = new LmdbEventLog({ path: logFile(root) });
  for await (const event of original.read()) events.push(event);
  const origin = (await original.tree()).origin;
  await original.close();
  rmSync(logFile(root));
  rmSync(`${logFile(root)}-lock`, { force: true });
  let at = new Date();
  const forged = new LmdbEventLog({ path: logFile(root), clock: () => at });
  // With a key of the forger's own, announced as a new writer's, the checkpoints from `from` on are signed with it.
  const signer = signerFromKey(options.ownKey ?? readFileSync(join(root, '.factorly', 'log.key'), 'utf8'));
  for (const event of events) {
    if (options.ownKey && event.seq === from) await forged.append([announcing(signer.verifierKey)]);
    let written = event.seq < from ? event : forge(event);
    if (written.type === 'log.checkpointed' && event.seq >= from) {
      const rootHash = (await forged.tree()).root(written.data.size);
      const checkpoint = signCheckpoint({ origin, size: written.data.size, rootHash }, signer);
      written = { ...written, data: { ...written.data, rootHash: rootHash.toString('hex'), checkpoint } };
    }
    at = new Date(written.at);
    await forged.append([{ id: written.id, type: written.type, data: written.data } as NewEvent]);
  }
  await forged.close();
  await tamper(root, (_dbs, raw) => {
    const tree = raw.openDB<Buffer, number>({ name: 'tree', encoding: 'binary' });
    const head = JSON.parse(tree.getBinary(0)!.toString('utf8')) as { size: number };
    tree.putSync(0, Buffer.from(JSON.stringify({ ...head, origin })));
  });
}

/** A `writer.started` of a writer nobody ran, announcing `verifierKey` as its key. */
function announcing(verifierKey: string): NewEvent {
  return {
    type: 'writer.started',
    data: {
      writer: 'forged-writer',
      pid: 1,
      bootId: 'unknown',
      host: 'elsewhere',
      startedAt: new Date().toISOString(),
      verifierKey,
    },
  };
}

/** A signer key of a forger's own (not the project's), as `factorly` writes one. */
export function forgerKey(): string {
  return newSignerKey('forger');
}

/** A `log.checkpointed` of a tree, signed by a key no writer of the log announced. */
export function forgedCheckpoint(tree: { origin: string; size: number; root(): Buffer }): NewEvent {
  const rootHash = tree.root();
  const checkpoint = signCheckpoint({ origin: tree.origin, size: tree.size, rootHash }, signerFromKey(forgerKey()));
  return {
    type: 'log.checkpointed',
    data: { size: tree.size, rootHash: rootHash.toString('hex'), origin: tree.origin, checkpoint },
  };
}

/**
 * Edits a stored snapshot of a persisted projection (`state/<name>` in the `derived` database):
 * `edit` gets its state and returns the forged one. With `consistent`, the snapshot's own digest is
 * recomputed to match (a forger who knows the published digest), so only the chain's record of it
 * tells it from the one the writer stored.
 */
export async function editSnapshot<S>(
  root: string,
  name: string,
  edit: (state: S) => S,
  options: { consistent?: boolean } = {},
): Promise<StoredSnapshot> {
  const env = open({ path: logFile(root), compression: false });
  const derived = new LmdbDerived(env);
  const stored = derived.loadSnapshot(name);
  if (!stored) throw new Error(`no snapshot of ${name} to edit`);
  const state = serialize(edit(deserialize(stored.state) as S));
  const forged = {
    ...stored,
    state,
    ...(options.consistent ? { digest: snapshotDigest(name, { ...stored, state }) } : {}),
  };
  await env.transaction(() => derived.saveSnapshot(name, forged));
  await env.close();
  return forged;
}

/** Every entry of a registered index (the audit view's `tool`, `agent`, `status`), as the file holds them. */
export async function editIndex(
  root: string,
  change: (entries: Database<number, [string, string]>) => void,
): Promise<void> {
  const env = open({ path: logFile(root), compression: false });
  change(env.openDB<number, [string, string]>({ name: 'index', dupSort: true, encoding: 'ordered-binary' }));
  await env.close();
}
