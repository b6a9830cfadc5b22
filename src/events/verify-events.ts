import { GENESIS_HASH, type Recorded } from './envelope.js';
import { chainLeaf, CompactRange } from './merkle.js';
import { frontierOf, type VerifiedFrontier } from './verify-frontier.js';
import type { EventLog } from './log.js';
import { rebuiltTree } from './tree-rebuild.js';
import { announcedKeyOf } from './writer-keys.js';
import { verifyChain } from './verify.js';
import {
  checkEmbeddedCheckpoints,
  checkGivenCheckpoints,
  verdictOf,
  type Finding,
  type LogFacts,
} from './verify-checkpoints.js';
import type { LogVerification, VerifyOptions } from './verify-log.js';
import { defaultViews, derivedSet } from './verify-derived.js';
import { LOG_FOLDS } from './log-folds.js';
import { StretchFold } from './verify-fold.js';
import { derivedFindings, foldTargets, type DerivedCheck } from './verify-log-derived.js';

/**
 * Verifies a log by reading its events, for a log with no file of its own to walk (one kept on a
 * shared stream): the chain, the Merkle tree recomputed from it, the log's own checkpoints and each
 * checkpoint kept elsewhere (consistency proofs). Its events are held in memory while it runs.
 */
export async function verifyEventLog(log: EventLog, options: VerifyOptions = {}): Promise<LogVerification> {
  const events: Recorded[] = [];
  for await (const event of log.read()) events.push(event);
  const chain = await verifyChain(each(events));
  const { verified } = chain;
  // A break the store itself reports (a lost batch) comes after every event read, so it is the first only when they all hold.
  const firstBad = chain.firstBad ?? (await log.stoppedShort?.());
  const findings: Finding[] = firstBad ? [{ kind: firstBad.kind, reason: firstBad.reason, seq: firstBad.seq }] : [];
  const origin = log.tree ? (await log.tree()).origin : undefined;
  const tree = await rebuiltTree(each(events.slice(0, verified)), origin);
  const facts: LogFacts = {
    verified,
    brokenAt: firstBad?.seq,
    origin,
    roots: new Map([[verified, tree.root(verified)]]),
    tree,
    embedded: events
      .slice(0, verified)
      .filter((event) => event.type === 'log.checkpointed')
      .map((event) => ({ seq: event.seq, data: (event as Recorded<'log.checkpointed'>).data })),
    writerKeys: events.slice(0, verified).flatMap((event) => announcedKeyOf(event) ?? []),
  };
  const derived = await derivedOfEvents(log, events, verified, options);
  findings.push(...derived.findings);
  const verifiers = options.verifiers ?? [];
  findings.push(...checkEmbeddedCheckpoints(facts, verifiers, options.restricted));
  const { results: checkpoints, findings: checkpointFindings } = checkGivenCheckpoints(
    options.checkpoints ?? [],
    verifiers,
    facts,
  );
  findings.push(...checkpointFindings);
  return {
    ...verdictOf(findings),
    verified,
    events: events.at(-1)?.seq ?? 0,
    tree: { size: verified, rootHash: tree.root(verified).toString('hex'), origin },
    checkpoints,
    derived: derived.checks,
    ...(firstBad ? {} : { frontier: frontierAt(events, verified) }),
  };
}

function frontierAt(events: readonly Recorded[], verified: number): VerifiedFrontier {
  const range = new CompactRange();
  for (const event of events.slice(0, verified)) range.push(chainLeaf(event.hash));
  return frontierOf(verified, events[verified - 1]?.hash ?? GENESIS_HASH, range);
}

/** The log's stored snapshots, when it offers them, against the chain's records and the fold of the events read. */
async function derivedOfEvents(
  log: EventLog,
  events: readonly Recorded[],
  verified: number,
  options: VerifyOptions,
): Promise<{ findings: Finding[]; checks: DerivedCheck[] }> {
  // The log's own folds too, where it keeps them as snapshots (a stream's: the last of each type, what is open, the tree's edge).
  const set = options.derived ?? derivedSet([...(options.views ?? defaultViews()), ...LOG_FOLDS]);
  const snapshots = (await log.storedSnapshots?.(set.projections.map((projection) => projection.name))) ?? [];
  if (snapshots.length === 0) return { findings: [], checks: [] };
  const targets = foldTargets(set, { snapshots });
  const fold = new StretchFold(set.projections, targets);
  for (const event of events.slice(0, verified)) fold.keep(event);
  const { compared } = fold.fold(undefined);
  const last = events.at(-1)?.seq ?? 0;
  const eventAt = (seq: number) => (events[seq - 1]?.seq === seq ? events[seq - 1] : undefined);
  return derivedFindings(eventAt, { snapshots, last }, { set, judged: [], compared, verified });
}

async function* each(events: readonly Recorded[]): AsyncIterable<Recorded> {
  yield* events;
}
