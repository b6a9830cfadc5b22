import { Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { approvalJson, approvalsTable } from '../../cli/approvals-format.js';
import { openExistingLog } from '../../cli/project-log.js';
import { paragraphs } from '../../cli/help-text.js';

export default class Approvals extends FactorlyCommand {
  static summary = 'List the standing approvals in force (a call approved "for 30 minutes" or "for this script").';
  static description = paragraphs`A tool whose shadow block reads \`confirm: {for: 30m}\` or \`confirm: {once_per: source}\` lets
a person approve more than one call: the tool for the agent that asked, for a while, or one script (by its SHA).
Each such approval is recorded in the log; this lists those in force, from every process writing the log.
\`factorly approvals revoke <id>\` withdraws one.`;
  static examples = ['<%= config.bin %> approvals', '<%= config.bin %> approvals --json'];
  static flags = {
    json: Flags.boolean({ description: 'Print JSON: {approvals: [...]}.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Approvals);
    const log = await openExistingLog(flags.config);
    const { listApprovals } = await import('../../events/projections/standing.js');
    try {
      const approvals = log ? await listApprovals(log) : [];
      if (flags.json) this.writeJson({ approvals: approvals.map(approvalJson) });
      else if (approvals.length === 0) this.log('No standing approvals in force.');
      else this.log(approvalsTable(approvals, process.stdout.columns || 100));
    } finally {
      await log?.close();
    }
  }
}
