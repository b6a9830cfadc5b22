import { Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { openExistingLog } from '../../cli/project-log.js';
import { printableLine } from '../../kernel/base/printable.js';

export default class LogsVerify extends FactorlyCommand {
  static summary = 'Walk the hash chain of the event log and report the first break.';
  static description = 'Exits 0 when every event is intact, 1 naming the first bad sequence number (tampered), 2 when the log could not be read (not an LMDB file, cut short, damaged pages).';
  static flags = { json: Flags.boolean({ description: 'Print the report as JSON.' }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(LogsVerify);
    const log = await openExistingLog(flags.config, { checkEveryPage: true });
    if (!log) {
      if (flags.json) this.writeJson({ ok: true, verified: 0 });
      else this.log('Chain verified: 0 events OK (nothing recorded yet)');
      return;
    }
    try {
      const { verifyChain } = await import('../../events/verify.js');
      const report = await verifyChain(log.read(), await log.attestedHead?.());
      if (flags.json) this.writeJson(report);
      else if (report.ok) this.log(`Chain verified: ${report.verified} events OK`);
      else {
        const bad = report.firstBad!;
        process.stderr.write(`${printableLine(`Chain broken at seq ${bad.seq} (${bad.kind}): ${bad.reason}; ${report.verified} events before it verified`)}\n`);
      }
      if (!report.ok) process.exitCode = 1;
    } finally {
      await log.close();
    }
  }
}
