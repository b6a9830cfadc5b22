import { Args, Flags } from '@oclif/core';
import { auditJson } from '../../cli/audit-format.js';
import { FactorlyCommand } from '../../cli/base-command.js';
import { parseBound } from '../../cli/bounds.js';
import { openRecordedLog } from '../../cli/project-log.js';
import type { Params } from '../../events/catalog.js';
import type { Recorded } from '../../events/envelope.js';
import type { EventLog } from '../../events/log.js';
import { FactorlyError } from '../../base/errors.js';
import { printableLine } from '../../base/printable.js';
import type { RecheckReport } from '../../evidence/shadow-recheck.js';
import { paragraphs } from '../../cli/help-text.js';

export default class LogsReplay extends FactorlyCommand {
  static summary = 'Re-run a recorded call, or rebuild what happened up to a point in the log.';
  static description = paragraphs`With --check: re-derives every recorded shadow decision from the events before it, under the
configuration in force when it was taken (recorded in the log: the tools and the plugins' config
blocks), and checks each outcome against its decisions (a blocked call recorded as run, a call that ran
without an allow): exit 1 on a mismatch, which is a forged event (or a rule whose code changed).

With --check --with-current-config: under today's configuration
instead, listing every call it would decide differently (exit 1 when there is one).

With a call (id or hash prefix): runs it again through the full pipeline (rules and secrets
apply anew); the new call records replayed_from. --param k=v overrides a recorded param; --show only
prints what would run.

With --until (seq, time or duration ago): replays the log up to that point and prints the timeline of
calls and governance decisions, optionally for one --agent.`;
  static args = { call: Args.string({ description: 'Call id or hash prefix (at least 4 hex chars) to re-run.' }) };
  static flags = {
    param: Flags.string({ description: 'Override a recorded param (k=v); repeatable.', multiple: true }),
    show: Flags.boolean({ description: 'Print the call that would run, without running it.' }),
    until: Flags.string({ description: 'Rebuild state up to this seq, time or duration ago.' }),
    check: Flags.boolean({
      description: 'Re-derive every recorded shadow decision under the rules in force then; exit 1 on any mismatch.',
    }),
    'with-current-config': Flags.boolean({
      description: "With --check: re-derive under today's configuration and list what would change.",
      dependsOn: ['check'],
    }),
    agent: Flags.string({ description: 'With --until: only this agent’s calls.' }),
    json: Flags.boolean({ description: 'Print JSON.' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(LogsReplay);
    if ([args.call, flags.until, flags.check || undefined].filter(Boolean).length > 1)
      throw new FactorlyError('USAGE', 'give one of: a call to re-run, --until, or --check');
    if (flags.check) return this.check(flags.config, flags.json, flags['with-current-config']);
    if (!args.call && !flags.until)
      throw new FactorlyError(
        'USAGE',
        'usage: factorly logs replay <call> [--param k=v] [--show]  |  factorly logs replay --until <seq|time> [--agent A]',
      );
    const log = await openRecordedLog(flags.config);
    try {
      if (flags.until) await this.timeline(log, flags.until, flags.agent, flags.json);
      else await this.refire(log, args.call!, flags);
    } finally {
      await log.close();
    }
  }

  private async refire(
    log: EventLog,
    ref: string,
    flags: { param?: string[]; show: boolean; json: boolean; config?: string },
  ): Promise<void> {
    const { findOneCall } = await import('../../events/call-tree.js');
    const callId = await findOneCall(log, ref);
    const story = await log.readCall(callId);
    const requested = story.find((e) => e.type === 'call.requested');
    if (requested?.type !== 'call.requested')
      throw new FactorlyError('CALL_NOT_FOUND', `call ${callId} has no recorded request to replay`);
    const given = overrides(flags.param ?? []);
    const params: Params = { ...requested.data.params, ...given };
    // A param the log kept only a prefix of cannot be replayed as recorded: it must be given again.
    const cut = cappedParams(story).filter(([name]) => !Object.hasOwn(given, name));
    const plan = { tool: requested.data.tool, params, replayedFrom: callId };
    if (flags.show) {
      if (flags.json) this.writeJson({ ...plan, capped: Object.fromEntries(cut) });
      else {
        this.log(printableLine(`Would run ${plan.tool} ${JSON.stringify(params)} (replaying ${callId})`));
        for (const [name, info] of cut)
          this.log(
            printableLine(
              `warning: param "${name}" was recorded capped (${describeCap(info)}); only its first bytes are shown above`,
            ),
          );
      }
      return;
    }
    const omitted = omittedParams(story);
    if (omitted)
      throw new FactorlyError(
        'PARAMS_INVALID',
        `cannot replay call ${callId}: ${omitted.count} of its params were left out of the record (${describeCap(omitted)})`,
      );
    if (cut.length > 0) {
      const which = cut
        .map(([name, info]) => `param "${name}" of call ${callId} was recorded capped (${describeCap(info)})`)
        .join('; ');
      const how = cut.map(([name]) => `--param ${name}=…`).join(' ');
      throw new FactorlyError(
        'PARAMS_INVALID',
        `cannot replay a cut value: ${which}. Give it again with ${how} (or see it with --show)`,
      );
    }
    await log.close();
    const kernel = await this.kernel(flags.config);
    const outcome = await kernel.pipeline.call({ ...plan, iface: 'cli', agentId: requested.data.agentId });
    if (flags.json) this.writeJson(outcome);
    else this.writeOutcome(outcome);
    process.exitCode = outcome.exitCode === 0 && outcome.error ? 1 : outcome.exitCode;
  }

  private async check(configPath: string | undefined, json: boolean, current: boolean): Promise<void> {
    const kernel = await this.kernel(configPath, { expandTools: false });
    const { recheckDecisions } = await import('../../evidence/shadow-recheck.js');
    const under = current ? 'current' : 'recorded';
    // Read as any read command does: a log this process may not write is opened read-only.
    const log = await openRecordedLog(configPath);
    const report = await recheckDecisions(log, kernel.shadow.ruleList(), {
      current: (name) => kernel.registry.get(name),
      under,
      plugins: { configure: (settings) => kernel.reconfigurePlugins(settings), current: kernel.config.settings },
    }).finally(() => log.close());
    if (json) this.writeJson({ under, ...report });
    else this.printCheck(report, current);
    if (report.mismatches.length > 0) process.exitCode = 1;
  }

  private printCheck(report: RecheckReport, current: boolean): void {
    const skipped = report.skipped.length ? `, ${report.skipped.length} call(s) skipped (tool in no known config)` : '';
    const unrecorded =
      !current && report.unrecorded
        ? `, ${report.unrecorded} from before configurations were recorded (checked under the current one)`
        : '';
    if (current)
      this.log(
        `Under the current config, ${report.mismatches.length} of ${report.checked} calls would be decided differently${skipped}`,
      );
    else
      this.log(
        `Re-derived the decisions of ${report.checked} calls: ${report.mismatches.length} mismatch(es)${skipped}${unrecorded}`,
      );
    for (const m of report.mismatches.slice(0, 20)) {
      this.log(
        printableLine(
          `  seq ${m.seq} ${m.tool} ${m.callId}: recorded [${m.recorded.join(', ')}], ${current ? 'now' : 're-derived'} [${m.rederived.join(', ')}]${m.outcome ? `; ${m.outcome}` : ''}`,
        ),
      );
    }
    if (report.mismatches.length > 20) this.log(`  … and ${report.mismatches.length - 20} more (--json lists all)`);
  }

  private async timeline(log: EventLog, until: string, agent: string | undefined, json: boolean): Promise<void> {
    const { rebuildTimeline } = await import('../../events/timeline.js');
    const bound = parseBound('until', until)!;
    const timeline = await rebuildTimeline(log, bound, agent);
    if (json) {
      this.writeJson({
        ...timeline,
        calls: timeline.calls.map((c) => ({ ...auditJson(c.entry), decisions: c.decisions })),
      });
      return;
    }
    this.log(
      printableLine(
        `State as of seq ${timeline.lastSeq}${timeline.lastAt ? ` (${timeline.lastAt})` : ''}: ${timeline.calls.length} calls${agent ? ` by ${agent}` : ''}`,
      ),
    );
    for (const { entry, decisions } of timeline.calls) {
      const rules = decisions
        .filter((d) => d.decision !== 'allow')
        .map((d) => `${d.rule}:${d.decision}`)
        .join(' ');
      this.log(
        printableLine(
          `  #${entry.seq} ${entry.requestedAt.slice(11, 19)} ${entry.tool} [${entry.iface}] ${entry.status ?? 'running'}${entry.shadowAction ? ` (${entry.shadowAction})` : ''}${rules ? ` ${rules}` : ''}`,
        ),
      );
    }
  }
}

/** The params `call.params_capped` lists for a call, by name. */
function cappedParams(story: readonly Recorded[]): [string, { bytes: number; sha256: string }][] {
  const capped = story.find((e) => e.type === 'call.params_capped');
  return capped?.type === 'call.params_capped' ? Object.entries(capped.data.params) : [];
}

/** The params a call's record left out whole (too many to name), if any. */
function omittedParams(story: readonly Recorded[]): { count: number; bytes: number; sha256: string } | undefined {
  const capped = story.find((e) => e.type === 'call.params_capped');
  return capped?.type === 'call.params_capped' ? capped.data.omitted : undefined;
}

function describeCap(info: { bytes: number; sha256: string }): string {
  return `${info.bytes} bytes, sha256 ${info.sha256.slice(0, 16)}…`;
}

function overrides(pairs: string[]): Params {
  const out: Params = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new FactorlyError('USAGE', `--param expects k=v, got ${JSON.stringify(pair)}`);
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}
