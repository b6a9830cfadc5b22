// What an LMDB log file's own records say (head, tree, indexes), read in one transaction before
// the verification scan judges them against the events.
import type { RootDatabase } from 'lmdb';
import { checkLmdbFile } from './lmdb-file-check.js';
import { LmdbTree } from './lmdb-tree.js';
import { LmdbInflight } from './lmdb-inflight.js';
import type { LogDatabases } from './lmdb-layout.js';
import type { IndexCoverage, LmdbDerived } from './lmdb-derived.js';
import type { StoredSnapshot } from './snapshot-digest.js';
import type { TransparencyTree, TreeHead } from './transparency-tree.js';
import type { LogHead } from './log.js';

/**
 * What the log's own records say, all read at once, in one read transaction, before the scan: a
 * log that keeps growing while it is checked (a server writing) is judged as it stood then. (The
 * scan reads nothing past `last`, and entries and nodes once written never change.)
 */
export interface Snapshot {
  last: number;
  head?: LogHead;
  tree?: TreeHead;
  latest: Map<string, number>;
  inflight?: Set<string>;
  /** The coverage record of the registered indexes: the seq they reach and the code that made each. */
  indexes?: IndexCoverage;
  /** Every stored snapshot, as it stood (undefined: its bytes are not a snapshot). */
  snapshots: { name: string; snapshot?: StoredSnapshot }[];
}

export function snapshotOf(root: RootDatabase, dbs: LogDatabases, derived: LmdbDerived): Snapshot {
  // lmdb-js begins its read transaction lazily (a first read does), opening a database renews it,
  // and a range takes a snapshot of its own unless given one: so the databases are opened first,
  // then one transaction is begun, held, and passed to every read.
  const tree = new LmdbTree(root);
  const inflight = new LmdbInflight(root);
  dbs.meta.get('head');
  const transaction = root.useReadTransaction();
  try {
    let last = 0;
    for (const key of dbs.events.getKeys({ reverse: true, limit: 1, transaction })) last = key;
    return {
      last,
      head: dbs.meta.get('head', { transaction }),
      tree: tree.head(transaction),
      latest: new Map([...dbs.latest.getRange({ transaction })].map(({ key, value }) => [key, value])),
      inflight: inflight.keys(transaction),
      indexes: derived.coverageRecord(transaction),
      snapshots: derived.snapshotNames(transaction).map((name) => ({
        name,
        snapshot: derived.loadSnapshot(name, transaction),
      })),
    };
  } finally {
    transaction.done();
  }
}

/**
 * Names a damaged page anywhere in the file (could not read) before anything reads through it. A
 * read of the main database (whose root the first check vouched for) begins the read transaction.
 */
export function walkEveryPage(root: RootDatabase, path: string): void {
  // lmdb-js keeps one read transaction per file within a process and renews it only after this
  // process writes: reset it, or a log another process appended to is judged as it stood earlier.
  root.resetReadTxn();
  root.get('factorly:pin');
  const pin = root.useReadTransaction();
  try {
    checkLmdbFile(path, { deep: true });
  } finally {
    pin.done();
  }
}

export interface StoredTree {
  origin?: string;
  size?: number;
  /** Set only when its root at the log's size matches the chain's. */
  tree?: TransparencyTree;
  rootMatches?: boolean;
}

export function storedTree(
  root: RootDatabase,
  dbs: LogDatabases,
  verified: number,
  head: TreeHead | undefined,
): StoredTree {
  if (!head) return {};
  const tree = new LmdbTree(root);
  const hashAt = (seq: number): string | undefined => {
    const bytes = dbs.events.getBinary(seq);
    return bytes && (JSON.parse(bytes.toString('utf8')) as { hash: string }).hash;
  };
  // Proofs come from the stored tree only when it covers exactly the intact chain.
  const view = head.size === verified ? tree.view(head.size, hashAt, head) : undefined;
  return { origin: head.origin, size: head.size, tree: view };
}
