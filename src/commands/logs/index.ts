import { Flags } from '@oclif/core';
import { auditDetail, auditJson, auditTable } from '../../cli/audit-format.js';
import { FactorlyCommand } from '../../cli/base-command.js';
import { parseBound } from '../../cli/bounds.js';
import { openExistingLog } from '../../cli/project-log.js';
import type { AuditFilter } from '../../events/audit-query.js';
import { CALL_STATUSES } from '../../events/catalog.js';
import type { EventLog } from '../../events/log.js';
import type { AuditEntry } from '../../events/projections/audit.js';

export default class Logs extends FactorlyCommand {
  static summary = 'Show recent calls from the audit view of the event log.';
  static examples = [
    '<%= config.bin %> logs -n 50 --status blocked',
    '<%= config.bin %> logs --tool github --since 2h --detail',
    '<%= config.bin %> logs --follow --json',
  ];
  static flags = {
    tail: Flags.integer({
      char: 'n',
      aliases: ['lines'],
      description: 'How many calls to show (newest last).',
      default: 20,
      min: 1,
    }),
    tool: Flags.string({ description: 'Only tools whose name contains this text.' }),
    status: Flags.string({ description: 'Only calls with this status.', options: [...CALL_STATUSES, 'running'] }),
    interface: Flags.string({ description: 'Only calls that came in this way (cli, mcp, code, ui, …).' }),
    agent: Flags.string({
      description: 'Only calls of this agent: a named token, an OAuth subject, else an MCP session id.',
    }),
    since: Flags.string({ description: 'From this seq, time, or duration ago (1200, 2026-11-30T10:00Z, 15m).' }),
    until: Flags.string({ description: 'Up to this seq, time, or duration ago.' }),
    follow: Flags.boolean({ char: 'f', description: 'Keep printing calls as they complete (Ctrl-C stops).' }),
    detail: Flags.boolean({ description: 'One block per call with every field.' }),
    json: Flags.boolean({ description: 'Print JSON Lines: one object per call.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Logs);
    const filter: AuditFilter = {
      tool: flags.tool,
      status: flags.status,
      iface: flags.interface,
      agent: flags.agent,
      since: parseBound('since', flags.since),
      until: parseBound('until', flags.until),
    };
    const log = await openExistingLog(flags.config);
    if (!log) {
      if (!flags.json) this.log('No events recorded yet.');
      return;
    }
    const print = (entries: AuditEntry[]): void => this.print(entries, flags);
    try {
      const { recentCalls } = await import('../../events/audit-query.js');
      const { registerAuditViews } = await import('../../events/audit-views.js');
      registerAuditViews(log);
      const entries = await recentCalls(log, filter, flags.tail);
      if (entries.length === 0 && !flags.json && !flags.follow) this.log('No matching calls.');
      else print(entries);
      if (flags.follow) await follow(log, filter, print);
    } finally {
      await log.close();
    }
  }

  private print(entries: AuditEntry[], flags: { json: boolean; detail: boolean }): void {
    if (entries.length === 0) return;
    if (flags.json) for (const entry of entries) this.writeJson(auditJson(entry));
    else if (flags.detail) this.log(entries.map(auditDetail).join('\n\n'));
    else this.log(auditTable(entries));
  }
}

/** Prints each matching call as it completes, until SIGINT/SIGTERM. */
async function follow(log: EventLog, filter: AuditFilter, print: (entries: AuditEntry[]) => void): Promise<void> {
  const { CallAssembler } = await import('../../events/call-assembler.js');
  const { matches } = await import('../../events/audit-query.js');
  const assembler = new CallAssembler();
  const head = await log.head();
  const stop = log.subscribe(head.seq + 1, (event) => {
    const entry = assembler.add(event);
    if (entry && matches(entry, filter)) print([entry]);
  });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  stop();
}
