import { createHash } from 'node:crypto';
import type { NewEvent, Recorded } from './envelope.js';
import { hashEnvelope } from './hash.js';

/** A projection's state as stored beside the log, with what vouches for it (as bytes: `encodeSnapshot`, `snapshot-store.ts`). */
export interface StoredSnapshot {
  /** The fold's code it was made by (`<version>:<digest of init and evolve>`). */
  stamp: string;
  /** The last seq folded into it. */
  seq: number;
  /** Hash of the event at `seq` (genesis for 0): the snapshot belongs to this history only. */
  hash: string;
  /** The state, in the structured clone format (node:v8 `serialize`). */
  state: Uint8Array;
  /** `snapshotDigest` of the above. */
  digest: string;
  /** The seq of the `projection.saved` event that records `digest`: the chain vouches for the snapshot there. */
  recorded: number;
}

/** A snapshot about to be stored: the event that records it is not sealed yet. */
export type UnrecordedSnapshot = Omit<StoredSnapshot, 'recorded'>;

/**
 * What the chain vouches for: sha256 over the projection's name, the stamp, the seq, the chain hash
 * at that seq and the state's bytes. Any change to one of them (an edited count, a snapshot moved to
 * another projection or another history) gives another digest, and the digest the log recorded is an
 * event of the hash chain, which no edit of the snapshot store can change without breaking the chain.
 */
export function snapshotDigest(name: string, snapshot: Omit<UnrecordedSnapshot, 'digest'>): string {
  return createHash('sha256')
    .update(`factorly-snapshot/1\n${name}\n${snapshot.stamp}\n${snapshot.seq}\n${snapshot.hash}\n`)
    .update(snapshot.state)
    .digest('hex');
}

/** The event that records the digests of the snapshots stored with it (in the same write, or before they are stored). */
export function savedRecord(snapshots: readonly { name: string; snapshot: UnrecordedSnapshot }[]): NewEvent {
  return {
    type: 'projection.saved',
    data: {
      snapshots: snapshots.map(({ name, snapshot }) => ({
        name,
        stamp: snapshot.stamp,
        seq: snapshot.seq,
        digest: snapshot.digest,
      })),
    },
  };
}

/** Why a stored snapshot may not be used (undefined: the chain vouches for it), given the event at its `recorded` seq. */
export function snapshotProblem(
  name: string,
  snapshot: StoredSnapshot,
  record: Recorded | undefined,
): string | undefined {
  if (typeof snapshot.digest !== 'string' || !Number.isSafeInteger(snapshot.recorded))
    return 'it carries no digest the log recorded (written by an older factorly, or outside it)';
  if (snapshotDigest(name, snapshot) !== snapshot.digest) return 'its state does not match its digest';
  if (record?.type !== 'projection.saved' || record.seq !== snapshot.recorded)
    return `the log holds no record of its digest at seq ${snapshot.recorded}`;
  if (hashEnvelope(record) !== record.hash) return `the record of its digest (seq ${record.seq}) was changed`;
  const listed = record.data.snapshots.find((entry) => entry.name === name);
  if (!listed) return `the record at seq ${record.seq} does not list it`;
  if (listed.digest !== snapshot.digest || listed.seq !== snapshot.seq || listed.stamp !== snapshot.stamp)
    return `its digest is not the one the log recorded at seq ${record.seq}`;
  return undefined;
}
