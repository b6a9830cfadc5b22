import type { Database, RootDatabase, Transaction } from 'lmdb';
import { FactorlyError } from '../base/errors.js';
import type { Recorded } from './envelope.js';
import type { LogDatabases } from './lmdb-layout.js';
import type { CompactRange } from './merkle.js';
import { rebuiltTree } from './tree-rebuild.js';
import {
  newOrigin,
  nodeKey,
  TransparencyTree,
  type LogTree,
  type TreeHead,
  type TreeNodeStore,
} from './transparency-tree.js';

export interface TreeGrowth {
  tree: TransparencyTree;
  frontier: CompactRange;
  origin: string;
}

/** Key 0 of the `tree` database holds its head; node keys start at 2^32 (level ≥ 1). */
const HEAD_KEY = 0;

/**
 * The Merkle tree of an LMDB log, in its own `tree` database: the complete subtrees (level ≥ 1) by
 * node key, and the head (size, origin). It is extended inside the log's append transaction, so
 * the tree always covers exactly the committed events; a log written before the tree existed is
 * caught up by its first append.
 */
export class LmdbTree {
  private readonly db: Database<Buffer, number> | undefined;
  /**
   * The frontier this process's last append left, with the chain hash of its last leaf: the next
   * append need not read the peaks (and decode the events under them) when the log still ends there.
   * Kept from inside the write, so appends batched into one transaction reuse it too; a write that
   * did not commit, or another writer's, leaves a head with another hash, and the peaks are read.
   */
  private latest?: { frontier: CompactRange; lastHash: string };

  constructor(root: RootDatabase) {
    // A log opened read-only that never had a tree has no such database (openDB answers undefined).
    this.db = root.openDB<Buffer, number>({ name: 'tree', encoding: 'binary' }) as Database<Buffer, number> | undefined;
  }

  head(transaction?: Transaction): TreeHead | undefined {
    const bytes = this.db?.get(HEAD_KEY, { transaction });
    if (bytes === undefined) return undefined;
    const head = JSON.parse(bytes.toString('utf8')) as TreeHead;
    if (!Number.isSafeInteger(head.size) || typeof head.origin !== 'string')
      throw new FactorlyError('LOG_CORRUPT', 'the Merkle tree head of the event log is not valid');
    return head;
  }

  /** The tree as stored, when it covers the events up to `seq` (else undefined: not built yet, or behind). */
  view(
    seq: number,
    chainHashAt: (seq: number) => string | undefined,
    head = this.head(),
  ): TransparencyTree | undefined {
    if (!this.db || !head || head.size !== seq) return undefined;
    return new TransparencyTree(this.store(this.db), chainHashAt, head);
  }

  /**
   * Inside the append transaction, before anything is written (a throw there does not roll back
   * what was written): the tree as of `seq`, caught up on events it does not cover yet (read by
   * `hashesFrom`, for a log written before trees existed). Refuses a tree that covers more events
   * than the log holds: events were removed, and appending would hide it.
   */
  prepare(
    { seq, hash }: { seq: number; hash: string },
    hashesFrom: (from: number) => Iterable<string>,
    chainHashAt: (seq: number) => string | undefined,
  ): TreeGrowth {
    const head = this.head() ?? { size: 0, origin: newOrigin() };
    if (head.size > seq) {
      throw new FactorlyError(
        'LOG_CORRUPT',
        `the event log's Merkle tree covers ${head.size} events but the log ends at seq ${seq}: events were removed (run factorly logs verify)`,
      );
    }
    const tree = new TransparencyTree(this.store(this.db!), chainHashAt, head);
    const { latest } = this;
    // The chain hash at the head commits to every event before it: the same hash, the same leaves.
    const known = latest?.frontier.size === seq && head.size === seq && latest.lastHash === hash;
    const frontier = known ? latest.frontier.clone() : tree.frontier();
    if (head.size < seq) tree.extend(frontier, hashesFrom(head.size + 1));
    return { tree, frontier, origin: head.origin };
  }

  /** Adds the chain hashes of the events just written (at least one). */
  extend(growth: TreeGrowth, fresh: readonly string[]): void {
    growth.tree.extend(growth.frontier, fresh);
    this.db!.putSync(HEAD_KEY, Buffer.from(JSON.stringify({ size: growth.frontier.size, origin: growth.origin })));
    this.latest = { frontier: growth.frontier, lastHash: fresh[fresh.length - 1]! };
  }

  private store(db: Database<Buffer, number>): TreeNodeStore {
    return {
      get: (level, index) => db.getBinary(nodeKey(level, index)),
      put: (level, index, hash) => db.putSync(nodeKey(level, index), hash),
    };
  }
}

/**
 * The tree as of the log's head: the last seq and the tree's head from one snapshot, so another
 * process's commit in between cannot make them disagree (a range read takes a snapshot of its own
 * unless given one); rebuilt from the events when the file has none stored.
 */
export async function treeAtHead(
  root: RootDatabase,
  merkle: LmdbTree,
  dbs: Pick<LogDatabases, 'events' | 'meta'>,
  read: (to: number) => AsyncIterable<Recorded>,
): Promise<LogTree> {
  dbs.meta.get('head');
  const transaction = root.useReadTransaction();
  let seq = 0;
  let head: TreeHead | undefined;
  try {
    for (const key of dbs.events.getKeys({ reverse: true, limit: 1, transaction })) seq = key;
    head = merkle.head(transaction);
  } finally {
    transaction.done();
  }
  const hashAt = (at: number): string | undefined => {
    const bytes = dbs.events.getBinary(at);
    return bytes && (JSON.parse(bytes.toString('utf8')) as { hash: string }).hash;
  };
  return merkle.view(seq, hashAt, head) ?? rebuiltTree(read(seq), head?.origin);
}
