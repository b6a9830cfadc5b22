import { Args, Flags } from '@oclif/core';
import { FactorlyError } from '../../base/errors.js';
import { FactorlyCommand } from '../../cli/base-command.js';
import { approvalJson, covers } from '../../cli/approvals-format.js';
import { openExistingLog } from '../../cli/project-log.js';

export default class ApprovalsRevoke extends FactorlyCommand {
  static summary = 'Revoke a standing approval: the next call it covered asks a person again.';
  static description = `Recorded as approval.revoked; a server running for the project sees it at its next decision.`;
  static examples = ['<%= config.bin %> approvals revoke 3f9a1c2e8b7d'];
  static args = { id: Args.string({ description: 'The approval id `factorly approvals` lists.', required: true }) };
  static flags = {
    json: Flags.boolean({ description: 'Print JSON: {revoked: {...}}.' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ApprovalsRevoke);
    const log = await openExistingLog(flags.config);
    const { revokeApproval } = await import('../../events/projections/standing.js');
    try {
      const revoked = log ? await revokeApproval(log, args.id, 'cli') : undefined;
      if (!revoked)
        throw new FactorlyError(
          'APPROVAL_NOT_FOUND',
          `no standing approval "${args.id}" is in force (\`factorly approvals\` lists them)`,
        );
      if (flags.json) this.writeJson({ revoked: approvalJson(revoked) });
      else this.log(`Revoked ${revoked.approvalId}: ${revoked.tool}, ${covers(revoked)}.`);
    } finally {
      await log?.close();
    }
  }
}
