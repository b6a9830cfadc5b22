import type { LogVerification } from 'factorly';
import type { EvidenceStatus } from './evidence-watch.js';
import { html, when, type Html } from './html.js';
import { badge } from './layout.js';

/** The header's evidence badges: the chain as last verified, and the newest signed checkpoint. */
export function evidenceBadges(status: EvidenceStatus): Html[] {
  const badges = [
    html`<a class="evidence-chain" href="/audit" title="${chainTitle(status)}">${chainBadge(status)}</a>`,
  ];
  const checkpoint = status.facts.checkpoint;
  if (checkpoint) {
    badges.push(
      html`<a class="evidence-checkpoint" href="/audit#checkpoint" title="Signed ${checkpoint.at} over the first ${checkpoint.size} events">${badge(`Checkpoint ${checkpoint.size}`, 'checkpoint')}</a>`,
    );
  }
  return badges;
}

function chainBadge({ report, failure }: EvidenceStatus): Html {
  if (failure !== undefined) return badge('Chain unreadable', 'error');
  if (!report) return badge('Verifying chain…', 'running');
  if (!report.ok) return badge(`Chain broken at seq ${brokenAt(report)}`, 'error');
  return badge(`Chain verified to seq ${report.verified}`, 'success');
}

function chainTitle({ report, checkedAt, failure, checking }: EvidenceStatus): string {
  const at = checkedAt ? ` (checked ${when(checkedAt.toISOString())}${checking ? '; checking again' : ''})` : '';
  if (failure !== undefined) return `The log could not be read: ${failure}${at}`;
  if (!report) return 'The log is being verified';
  return report.ok
    ? `Hash chain, indexes, Merkle tree and checkpoints verified for ${report.verified} events${at}`
    : `${report.firstBad?.reason ?? 'tampering found'}${at}`;
}

/** The seq the first finding names (a chain break first), else the first one past those verified. */
export function brokenAt(report: LogVerification): number {
  return report.firstBad?.seq ?? report.verified + 1;
}
