import { Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { openExistingLog } from '../../cli/project-log.js';
import { messageOf } from '../../base/errors.js';
import type { EventLog } from '../../events/log.js';
import { paragraphs } from '../../cli/help-text.js';

export default class LogsRebuild extends FactorlyCommand {
  static summary = 'Recompute every persisted projection and index of the event log from its first event.';
  static description = paragraphs`The log keeps snapshots of what calls and the audit view need (rate-limit buckets, loop windows,
counts by status and tool) and indexes (by tool, agent and status), all derived from the events and
kept up to date as they are appended.

This drops them and folds the whole log again: after a crash
of the disk, to check them, or to reclaim space from projections no plugin uses any more. Events
are never touched. The plugins are loaded so their rules' projections are rebuilt too; with a
config that does not load, only the audit view's are, and the rest rebuild at the next call.`;
  static flags = { json: Flags.boolean({ description: 'Print the report as JSON (progress still goes to stderr).' }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(LogsRebuild);
    const log = await this.openWithProjections(flags.config);
    if (!log) {
      if (flags.json) this.writeJson({ events: 0, projections: [], indexes: [], seconds: 0 });
      else this.log('No events recorded yet.');
      return;
    }
    const started = performance.now();
    let shown = 0;
    const report = await log.rebuild!((done, total) => {
      if (done - shown < 100_000 && done !== total) return;
      shown = done;
      process.stderr.write(`rebuilding: ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} events\n`);
    }).finally(() => this.own?.close());
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    if (flags.json) this.writeJson({ ...report, seconds });
    else
      this.log(
        `Rebuilt ${report.projections.length} projections (${report.projections.join(', ')}) and ${report.indexes.length} indexes over ${report.events.toLocaleString('en-US')} events in ${seconds} s`,
      );
  }

  /** The log this command opened itself (without a kernel, which closes its own). */
  private own?: EventLog;

  /** The project's log with every projection a writer keeps registered: through the kernel when the config loads. */
  private async openWithProjections(configPath: string | undefined): Promise<EventLog | undefined> {
    const bare = await openExistingLog(configPath);
    if (!bare) return undefined;
    await bare.close();
    try {
      const kernel = await this.kernel(configPath, { expandTools: false });
      return kernel.log();
    } catch (error) {
      this.warnLine(`the config did not load (${messageOf(error)}): rebuilding the audit view only`);
      this.own = (await openExistingLog(configPath))!;
      const { registerAuditViews } = await import('../../events/audit-views.js');
      registerAuditViews(this.own);
      return this.own;
    }
  }
}
