import { Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { openExistingLog } from '../../cli/project-log.js';
import { CALL_STATUSES } from '../../events/catalog.js';
import type { EventLog } from '../../events/log.js';
import type { LogStats } from '../../events/projections/stats.js';
import type { TailReport } from '../../events/tail-check.js';
import type { ChainReport } from '../../events/verify.js';
import { printableLine } from '../../base/printable.js';
import { paragraphs } from '../../cli/help-text.js';

/** How many of the newest events `logs stats` checks (hash, link, head record) without `--verify`. */
const TAIL_CHECKED = 1000;

type ChainStatus = (ChainReport & { scope: 'full' }) | TailReport;

export default class LogsStats extends FactorlyCommand {
  static summary =
    'Summarise the log: calls by status and tool, blocked calls by reason, output savings, chain status.';
  static description = paragraphs`The counts come from the log's persisted projection (kept as calls are recorded), so they cost
the same on any log. The chain status checks the newest ${TAIL_CHECKED} events and the head record; --verify walks
the whole chain, as \`factorly logs verify\` does.`;
  static flags = {
    json: Flags.boolean({ description: 'Print the summary as JSON.' }),
    verify: Flags.boolean({ description: 'Walk the whole hash chain instead of checking its newest events.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(LogsStats);
    const log = await openExistingLog(flags.config);
    if (!log) {
      if (flags.json) this.writeJson({ events: 0 });
      else this.log('No events recorded yet.');
      return;
    }
    try {
      const { registerAuditViews } = await import('../../events/audit-views.js');
      const { state: stats } = await registerAuditViews(log).current();
      const chain = await chainStatus(log, flags.verify);
      if (flags.json) this.writeJson({ ...stats, chain });
      else this.log(render(stats, chain));
      if (!chain.ok) process.exitCode = 1;
    } finally {
      await log.close();
    }
  }
}

async function chainStatus(log: EventLog, full: boolean): Promise<ChainStatus> {
  if (full) {
    const { verifyChain } = await import('../../events/verify.js');
    return { ...(await verifyChain(log.read(), await log.attestedHead?.())), scope: 'full' };
  }
  const { checkTail } = await import('../../events/tail-check.js');
  return checkTail(log, TAIL_CHECKED);
}

function chainLine(chain: ChainStatus): string {
  if (chain.scope === 'full') {
    return chain.ok
      ? `${chain.verified} events verified`
      : `BROKEN at seq ${chain.firstBad!.seq} (${chain.firstBad!.kind}): ${chain.firstBad!.reason}`;
  }
  if (!chain.ok) return `BROKEN at seq ${chain.firstBad!.seq}: ${chain.firstBad!.reason} (run factorly logs verify)`;
  return `newest ${chain.checked} of ${chain.head.seq} events intact, head record matches (the whole chain: factorly logs verify)`;
}

function render(stats: LogStats, chain: ChainStatus): string {
  const completed = Object.values(stats.byStatus).reduce((a, b) => a + b, 0) || 1;
  const known: readonly string[] = CALL_STATUSES;
  const statuses = [...known, ...Object.keys(stats.byStatus).filter((s) => !known.includes(s))];
  const tools = Object.entries(stats.byTool)
    .sort(([, a], [, b]) => b - a)
    .slice(0, 10);
  const blocked = Object.entries(stats.blockedBy).sort(([, a], [, b]) => b - a);
  const totalBlocked = blocked.reduce((a, [, n]) => a + n, 0);
  const { processed } = stats;
  const saved = processed.originalBytes === 0 ? 0 : (1 - processed.processedBytes / processed.originalBytes) * 100;
  return [
    `Log: ${stats.events} events, ${stats.calls} calls`,
    '',
    'By status',
    ...statuses.map(
      (s) =>
        `  ${s.padEnd(10)} ${String(stats.byStatus[s] ?? 0).padStart(7)}  ${(((stats.byStatus[s] ?? 0) / completed) * 100).toFixed(1)}%`,
    ),
    '',
    'By tool (top 10)',
    ...(tools.length === 0 ? ['  —'] : tools.map(([tool, n]) => `  ${tool.padEnd(30)} ${String(n).padStart(7)}`)),
    '',
    `Blocked calls: ${totalBlocked === 0 ? 'none' : `${totalBlocked} total (${blocked.map(([why, n]) => `${n} ${why}`).join(', ')})`}`,
    `Output savings: ${processed.calls === 0 ? 'no output processing recorded' : `${processed.calls} calls processed, ${kb(processed.originalBytes)} → ${kb(processed.processedBytes)} (${saved.toFixed(1)}% saved)`}`,
    `Hash chain: ${chainLine(chain)}`,
  ]
    .map(printableLine)
    .join('\n');
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}
