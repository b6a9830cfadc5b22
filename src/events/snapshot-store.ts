import type { StoredSnapshot } from './projection-set.js';

/**
 * Where a log keeps its persisted projections' snapshots (see `Projection`): each one opaque state
 * bytes with the stamp of the code that folded it, the seq it covers and that seq's chain hash. The
 * LMDB file keeps them in its `derived` database, in the append's transaction; a log over a shared
 * stream keeps them beside the stream (`SideStore`) once they are due. The store only keeps them:
 * whether one may be used is decided where it is loaded (`ProjectionSet`), the same for every store.
 */
export interface SnapshotStore {
  /** The snapshot kept for projection `name`; undefined when there is none, or it cannot be read. */
  loadSnapshot(name: string): StoredSnapshot | undefined | Promise<StoredSnapshot | undefined>;
  /** Keeps `snapshot` for projection `name`, in place of the one before. */
  saveSnapshot(name: string, snapshot: StoredSnapshot): void | Promise<void>;
}

/** A snapshot as bytes: its header (every field but the state, as JSON) with its length before it, then the state. */
export function encodeSnapshot(snapshot: StoredSnapshot): Buffer {
  const { state, ...fields } = snapshot;
  const header = Buffer.from(JSON.stringify(fields), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length, 0);
  return Buffer.concat([length, header, state]);
}

/** The snapshot `encodeSnapshot` made; undefined for bytes that are not one. */
export function decodeSnapshot(bytes: Uint8Array | undefined): StoredSnapshot | undefined {
  if (!bytes || bytes.length < 4) return undefined;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    const length = buffer.readUInt32LE(0);
    if (4 + length > buffer.length) return undefined;
    const header = JSON.parse(buffer.subarray(4, 4 + length).toString('utf8')) as Omit<StoredSnapshot, 'state'>;
    if (typeof header?.stamp !== 'string' || !Number.isSafeInteger(header.seq) || typeof header.hash !== 'string')
      return undefined;
    return { ...header, state: buffer.subarray(4 + length) };
  } catch {
    return undefined;
  }
}
