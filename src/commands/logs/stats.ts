import { Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { openExistingLog } from '../../cli/project-log.js';
import type { LogStats } from '../../events/projections/stats.js';
import type { ChainReport } from '../../events/verify.js';

export default class LogsStats extends FactorlyCommand {
  static summary = 'Summarise the log: calls by status and tool, blocked calls by reason, output savings, chain status.';
  static flags = { json: Flags.boolean({ description: 'Print the summary as JSON.' }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(LogsStats);
    const log = await openExistingLog(flags.config);
    if (!log) {
      if (flags.json) this.writeJson({ events: 0 });
      else this.log('No events recorded yet.');
      return;
    }
    try {
      const { replay } = await import('../../events/projection.js');
      const { statsProjection } = await import('../../events/projections/stats.js');
      const { verifyChain } = await import('../../events/verify.js');
      const stats = await replay(log, statsProjection);
      const chain = await verifyChain(log.read(), await log.attestedHead?.());
      if (flags.json) this.writeJson({ ...stats, chain });
      else this.log(render(stats, chain));
      if (!chain.ok) process.exitCode = 1;
    } finally {
      await log.close();
    }
  }
}

function render(stats: LogStats, chain: ChainReport): string {
  const completed = Object.values(stats.byStatus).reduce((a, b) => a + b, 0) || 1;
  const statuses = ['success', 'error', 'blocked', 'interrupted', ...Object.keys(stats.byStatus).filter((s) => !['success', 'error', 'blocked', 'interrupted'].includes(s))];
  const tools = Object.entries(stats.byTool).sort(([, a], [, b]) => b - a).slice(0, 10);
  const blocked = Object.entries(stats.blockedBy).sort(([, a], [, b]) => b - a);
  const totalBlocked = blocked.reduce((a, [, n]) => a + n, 0);
  const { processed } = stats;
  const saved = processed.originalBytes === 0 ? 0 : (1 - processed.processedBytes / processed.originalBytes) * 100;
  return [
    `Log: ${stats.events} events, ${stats.calls} calls`,
    '',
    'By status',
    ...statuses.map((s) => `  ${s.padEnd(10)} ${String(stats.byStatus[s] ?? 0).padStart(7)}  ${(((stats.byStatus[s] ?? 0) / completed) * 100).toFixed(1)}%`),
    '',
    'By tool (top 10)',
    ...(tools.length === 0 ? ['  —'] : tools.map(([tool, n]) => `  ${tool.padEnd(30)} ${String(n).padStart(7)}`)),
    '',
    `Blocked calls: ${totalBlocked === 0 ? 'none' : `${totalBlocked} total (${blocked.map(([why, n]) => `${n} ${why}`).join(', ')})`}`,
    `Output savings: ${processed.calls === 0 ? 'no output processing recorded' : `${processed.calls} calls processed, ${kb(processed.originalBytes)} → ${kb(processed.processedBytes)} (${saved.toFixed(1)}% saved)`}`,
    `Hash chain: ${chain.ok ? `${chain.verified} events verified` : `BROKEN at seq ${chain.firstBad!.seq} (${chain.firstBad!.kind}): ${chain.firstBad!.reason}`}`,
  ].join('\n');
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}
