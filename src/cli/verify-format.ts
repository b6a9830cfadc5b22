import type { Finding } from '../events/verify-checkpoints.js';
import type { LogVerification } from '../events/verify-log.js';
import type { DerivedCheck } from '../events/verify-log-derived.js';

const CHAIN_KINDS = new Set(['modified', 'deleted', 'inserted', 'reordered', 'corrupt', 'truncated']);

/** Lines for stdout (what holds) and stderr (what does not) of `logs verify`. */
export function renderVerification(
  report: LogVerification & { proofs?: { reason: string; ok: boolean }[]; unloaded?: string },
): {
  out: string[];
  err: string[];
} {
  const out: string[] = [];
  const err = report.findings.map((finding, i) => findingLine(finding, i === 0 ? report.verified : undefined));
  const chainChecked = report.events > 0 || !report.proofs?.length;
  if (report.ok && chainChecked) out.push(`Chain verified: ${report.verified} events OK`);
  if (chainChecked && (report.tree.size > 0 || report.ok) && report.tree.rootHash !== '')
    out.push(
      `Merkle tree: ${report.tree.size} leaves, root ${report.tree.rootHash}${report.tree.origin ? ` (${report.tree.origin})` : ''}`,
    );
  for (const checkpoint of report.checkpoints) {
    if (checkpoint.status === 'consistent')
      out.push(
        `Checkpoint ${checkpoint.name}: consistent (${checkpoint.size} events${checkpoint.proof ? `, consistency proof of ${checkpoint.proof.length} hashes verified` : ''})`,
      );
    // Its own result where no finding names it: signed, and why it cannot be proven (a broken chain inside it).
    else if (
      checkpoint.status === 'inconsistent' &&
      !report.findings.some((finding) => finding.where === checkpoint.name)
    )
      err.push(
        `Checkpoint ${checkpoint.name}: signed by a trusted key (${checkpoint.size} events), not proven: ${checkpoint.reason}`,
      );
  }
  for (const proof of report.proofs ?? []) if (proof.ok) out.push(`Proof: ${proof.reason}`);
  out.push(...derivedLines(report.derived ?? [], report.unloaded));
  return { out, err };
}

/** What was re-derived and found equal, and what could not be checked here (differences are findings). */
function derivedLines(checks: readonly DerivedCheck[], unloaded: string | undefined): string[] {
  const lines: string[] = [];
  const equal = (kind: DerivedCheck['kind']) =>
    checks.filter((check) => check.kind === kind && check.status === 'verified').map((check) => check.name);
  const snapshots = equal('projection');
  const indexes = equal('index');
  if (snapshots.length > 0)
    lines.push(`Snapshots: ${snapshots.length} equal to the fold of the events (${snapshots.join(', ')})`);
  if (indexes.length > 0)
    lines.push(`Indexes: ${indexes.length} equal to what the events call for (${indexes.join(', ')})`);
  for (const check of checks)
    if (check.status === 'verified' && check.reason) lines.push(`Note: ${check.kind} ${check.name}: ${check.reason}`);
  for (const check of checks)
    if (check.status === 'unchecked') lines.push(`Not checked: ${check.kind} ${check.name}: ${check.reason}`);
  if (unloaded)
    lines.push(`The project's plugins did not load (${unloaded}): only factorly's own derived state was re-derived`);
  return lines;
}

function findingLine(finding: Finding, verifiedBefore: number | undefined): string {
  if (CHAIN_KINDS.has(finding.kind) && finding.where === undefined && finding.seq !== undefined) {
    return `Chain broken at seq ${finding.seq} (${finding.kind}): ${finding.reason}${verifiedBefore === undefined ? '' : `; ${verifiedBefore} events before it verified`}`;
  }
  const where = finding.where ? ` [${finding.where}]` : '';
  return `Tampered (${finding.kind})${where}: ${finding.reason}`;
}
