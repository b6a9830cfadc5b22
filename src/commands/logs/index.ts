import { Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { openExistingLog } from '../../cli/project-log.js';
import { table } from '../../cli/table.js';
import type { AuditEntry } from '../../events/projections/audit.js';

export default class Logs extends FactorlyCommand {
  static summary = 'Show recent calls from the audit view of the event log.';
  static flags = {
    tail: Flags.integer({ char: 'n', aliases: ['lines'], description: 'How many calls to show (newest last).', default: 20, min: 1 }),
    json: Flags.boolean({ description: 'Print JSON Lines: one object per call.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Logs);
    const log = await openExistingLog(flags.config);
    if (!log) {
      if (!flags.json) this.log('No events recorded yet.');
      return;
    }
    try {
      const { replay } = await import('../../events/projection.js');
      const { auditProjection, newestFirst } = await import('../../events/projections/audit.js');
      const entries = newestFirst(await replay(log, auditProjection)).slice(0, flags.tail).reverse();
      if (flags.json) for (const entry of entries) this.writeJson(toJson(entry));
      else this.log(entries.length === 0 ? 'No calls recorded yet.' : render(entries));
    } finally {
      await log.close();
    }
  }
}

/** The `--json` shape of one call (snake_case, stable for scripts). */
export function toJson(entry: AuditEntry) {
  return {
    timestamp: entry.requestedAt,
    call_id: entry.callId,
    parent_id: entry.parentId ?? null,
    root_id: entry.rootId,
    interface: entry.iface,
    tool: entry.tool,
    params: entry.params,
    status: entry.status ?? 'running',
    exit_code: entry.exitCode ?? null,
    duration_ms: entry.durationMs ?? null,
    shadow_action: entry.shadowAction ?? null,
    agent: entry.agentId ?? null,
    source_sha: entry.sourceSha ?? null,
    output_bytes: entry.outputBytes ?? null,
    error: entry.error ?? null,
    seq: entry.seq,
    hash: entry.hash,
  };
}

function render(entries: AuditEntry[]): string {
  const spansDays = new Set(entries.map((e) => e.requestedAt.slice(0, 10))).size > 1;
  const withShadow = entries.some((e) => e.shadowAction !== undefined && e.shadowAction !== 'allow');
  const headers = ['TIME', 'TOOL', 'STATUS', 'DURATION', ...(withShadow ? ['SHADOW'] : [])];
  const rows = entries.map((e) => [
    formatTime(e.requestedAt, spansDays),
    e.tool,
    e.status ?? 'running',
    e.durationMs === undefined ? '—' : `${e.durationMs}ms`,
    ...(withShadow ? [e.shadowAction ?? ''] : []),
  ]);
  return table(headers, rows, 80);
}

function formatTime(iso: string, withDate: boolean): string {
  const date = new Date(iso);
  const time = date.toTimeString().slice(0, 8);
  return withDate ? `${date.toLocaleString('en-US', { month: 'short', day: '2-digit' })} ${time}` : time;
}
