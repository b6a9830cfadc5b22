// A log file's derived state (snapshots of projections, the registered indexes) judged against the
// chain's records and the fold of its events.
import type { Recorded } from './envelope.js';
import { indexStamp } from './event-index.js';
import { stampOf } from './projection-set.js';
import { snapshotProblem, type StoredSnapshot } from './snapshot-digest.js';
import type { Finding } from './verify-checkpoints.js';
import type { DerivedSet } from './verify-derived.js';
import type { FoldComparison, FoldTarget } from './verify-fold.js';
import type { Snapshot } from './verify-log-records.js';
import { parseEntry, type ScanSource } from './verify-scan.js';

/** How one projection's snapshot or one index fared: re-derived and equal, different, or left unchecked (and why). */
export interface DerivedCheck {
  name: string;
  kind: 'projection' | 'index';
  status: 'verified' | 'differs' | 'unchecked';
  /** The seq a snapshot covers, or an index reaches. */
  seq?: number;
  reason?: string;
}

/** What a log keeps beside its events: each stored snapshot, and the registered indexes' coverage record. */
export type StoredDerived = Pick<Snapshot, 'snapshots' | 'indexes' | 'last'>;

/** The registered indexes verification can judge: those it has the code of, as the coverage record names it. */
export function judgedIndexes(set: DerivedSet, snapshot: Pick<Snapshot, 'indexes'>): string[] {
  const stamps = snapshot.indexes?.stamps ?? {};
  return set.indexes.filter((index) => stamps[index.name] === indexStamp(index)).map((index) => index.name);
}

/** The snapshots to fold the log to: those of a projection verification has, made by that same code. */
export function foldTargets(set: DerivedSet, snapshot: Pick<Snapshot, 'snapshots'>): FoldTarget[] {
  return snapshot.snapshots.flatMap(({ name, snapshot: stored }) => {
    const projection = set.projections.find((candidate) => candidate.name === name);
    if (!stored || !projection || stampOf(projection) !== stored.stamp || stored.seq < 1) return [];
    return [{ name, seq: stored.seq, state: stored.state }];
  });
}

/**
 * Each snapshot against the record of its digest in the chain and against the fold of the events up
 * to its seq, and the indexes' standing. With a broken chain nothing is judged (the events are in doubt).
 */
export function derivedFindings(
  eventAt: (seq: number) => Recorded | undefined,
  snapshot: StoredDerived,
  scan: { set: DerivedSet; judged: readonly string[]; compared: readonly FoldComparison[]; verified: number },
): { findings: Finding[]; checks: DerivedCheck[] } {
  const findings: Finding[] = [];
  const checks: DerivedCheck[] = [];
  const broken = scan.verified < snapshot.last;
  for (const { name, snapshot: stored } of snapshot.snapshots) {
    const found = broken ? undefined : snapshotFinding(eventAt, name, stored, scan);
    if (found?.finding) findings.push(found.finding);
    checks.push({
      name,
      kind: 'projection',
      ...(found?.check ?? { status: 'unchecked', reason: 'the chain is broken' }),
    });
  }
  const stamps = snapshot.indexes?.stamps ?? {};
  for (const name of Object.keys(stamps)) {
    const judged = scan.judged.includes(name) && !broken;
    const reason = broken
      ? 'the chain is broken'
      : scan.set.indexes.some((index) => index.name === name)
        ? 'made by other code: the next writer indexes the log again'
        : 'no code for it here (a plugin this verification did not load)';
    checks.push({
      name,
      kind: 'index',
      status: judged ? 'verified' : 'unchecked',
      seq: snapshot.indexes?.seq,
      ...(judged ? {} : { reason }),
    });
  }
  return { findings, checks };
}

function snapshotFinding(
  eventAt: (seq: number) => Recorded | undefined,
  name: string,
  stored: StoredSnapshot | undefined,
  scan: { set: DerivedSet; compared: readonly FoldComparison[]; verified: number },
): { finding?: Finding; check: Omit<DerivedCheck, 'name' | 'kind'> } {
  const tampered = (reason: string, seq?: number) => ({
    finding: { kind: 'derived', where: name, reason, ...(seq === undefined ? {} : { seq }) },
    check: { status: 'differs' as const, reason, ...(seq === undefined ? {} : { seq }) },
  });
  if (!stored) return tampered(`the snapshot of ${name} cannot be read`);
  const { seq } = stored;
  if (seq > scan.verified)
    return tampered(`the snapshot of ${name} says it covers seq ${seq}, but the log ends at seq ${scan.verified}`, seq);
  const record = stored.recorded > 0 && stored.recorded <= scan.verified ? eventAt(stored.recorded) : undefined;
  const problem = snapshotProblem(name, stored, record);
  const legacy = typeof stored.digest !== 'string';
  if (problem && !legacy) return tampered(`the snapshot of ${name} (seq ${seq}) is not vouched for: ${problem}`, seq);
  const compared = scan.compared.find((comparison) => comparison.name === name && comparison.seq === seq);
  if (compared && !compared.equal)
    return tampered(
      compared.failed
        ? `the fold of ${name} failed while verifying its snapshot at seq ${seq}: ${compared.failed}`
        : `the snapshot of ${name} at seq ${seq} differs from the fold of events 1–${seq}`,
      seq,
    );
  if (compared) return { check: { status: 'verified', seq, ...(legacy ? { reason: problem } : {}) } };
  const projection = scan.set.projections.find((candidate) => candidate.name === name);
  const why = !projection
    ? 'no code for it here (a plugin this verification did not load)'
    : stampOf(projection) !== stored.stamp
      ? 'made by other code: this code folds the log again instead of using it'
      : 'its code names no module to load on verification threads';
  return { check: { status: 'unchecked', seq, reason: legacy ? `${problem}; ${why}` : `not re-folded: ${why}` } };
}

/** The event at `seq` of a log file, as stored. */
export function fileEventAt(source: ScanSource, seq: number): Recorded | undefined {
  for (const { key, value } of source.entries(seq, seq)) return parseEntry(key, value).event;
  return undefined;
}
