import { ChainChecker } from './chain-check.js';
import type { Recorded } from './envelope.js';
import { chainLeaf, CompactRange } from './merkle.js';
import { verdictOf, type Finding } from './verify-checkpoints.js';
import type { LogVerification } from './verify-log.js';
import { frontierOf } from './verify-frontier.js';

/**
 * A verification brought up to date with the events appended since it ended, checked one by one on
 * top of its frontier: each links to the one before and matches its hash, and the Merkle root grows
 * with them. What it cannot see (an event before the frontier changed since, an index or a snapshot)
 * is the next full verification's to find. A report with no frontier (a broken chain) stays as it is.
 */
export async function extendVerification(
  report: LogVerification,
  events: AsyncIterable<Recorded>,
): Promise<LogVerification> {
  const frontier = report.frontier;
  if (!frontier || report.verified !== frontier.size) return report;
  const checker = ChainChecker.after(frontier.size, frontier.lastHash);
  const range = new CompactRange(
    frontier.size,
    frontier.peaks.map((peak) => Buffer.from(peak, 'hex')),
  );
  let last = report.events;
  let broken: Finding | undefined;
  for await (const event of events) {
    last = Math.max(last, event.seq);
    const bad = checker.check({ event }, () => undefined);
    if (bad) {
      broken = { kind: bad.kind, seq: bad.seq, reason: bad.reason };
      break;
    }
    range.push(chainLeaf(event.hash));
  }
  const verified = checker.verified + frontier.size;
  if (verified === frontier.size && !broken) return report;
  const findings = broken ? [broken, ...report.findings] : report.findings;
  return {
    ...report,
    ...verdictOf(findings),
    verified,
    events: last,
    tree: { ...report.tree, size: verified, rootHash: range.root().toString('hex') },
    frontier: broken ? undefined : frontierOf(verified, checker.last.hash!, range),
  };
}
