import { existsSync } from 'node:fs';
import { Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { readCheckpoints, readVerifiers } from '../../evidence/evidence-files.js';
import { projectLogEngine, projectLogPaths, projectTrustedKeys } from '../../cli/project-log.js';
import { renderVerification } from '../../cli/verify-format.js';
import type { LogVerification, VerifyOptions } from '../../events/verify-log.js';
import { FactorlyError, messageOf } from '../../base/errors.js';
import { printableLine } from '../../base/printable.js';
import { paragraphs } from '../../cli/help-text.js';

interface VerifyFlags {
  config?: string;
  offline?: string;
  proof?: string[];
  checkpoint?: string[];
  key?: string[];
  json: boolean;
}

/**
 * What stopped verification before it could judge the log: exit 2 (`LOG_UNREADABLE`, the message
 * kept), whatever raised it (a key with loose permissions, a stream that does not answer). Tampering
 * found while reading (`LOG_CORRUPT`) stays 1, and a mistake in the command line stays a usage error.
 */
function couldNotVerify(error: unknown): unknown {
  if (FactorlyError.isInstance(error) && ['LOG_CORRUPT', 'LOG_UNREADABLE', 'USAGE'].includes(error.code)) return error;
  return new FactorlyError('LOG_UNREADABLE', messageOf(error), { cause: error });
}

export default class LogsVerify extends FactorlyCommand {
  static summary = 'Verify the event log: its hash chain, its indexes, its Merkle tree and checkpoints kept elsewhere.';
  static description = paragraphs`Walks the hash chain and names the first bad event (modified, deleted, inserted, reordered,
corrupt, truncated); checks every index against the events and the stored Merkle tree against the chain;
re-derives the derived state: each stored snapshot (the stats, the dashboard, the rules' rate-limit buckets and
loop windows, a plugin's) against the record of its digest in the chain and against the fold of the events up to
it, each registered index against its events, naming the one that differs (the project's plugins are loaded to
find their own); checks the log's own signed checkpoints (each against the keys the log's writers announced, or
only the --key / log.trusted_keys given; without --key the project's key, or its published log.pub when
log.key cannot be read); and proves the log consistent with each --checkpoint kept outside it (RFC 9162
consistency proof), naming a rollback, a cut tail, a rewrite or another log. On a shared stream, a batch
missing from it (deleted, purged) is tampering, named by its first seq.

With --offline, checks an export (factorly logs export) and/or --proof files without a project.

Exit codes: 0 verified, 1 tampered (what was found is printed), 2 could not read (the log is not an LMDB
file, is empty, cut short or has damaged pages; a checkpoint or key that cannot be read or used, such as a key
others can read, or a log.key this user may not read with no log.pub beside it; a log stream that does not
answer).`;
  static examples = [
    '<%= config.bin %> logs verify',
    '<%= config.bin %> logs verify --checkpoint ~/anchors/checkpoint-000000001200.txt',
    '<%= config.bin %> logs verify --offline export.jsonl --checkpoint c.txt --key log.pub',
  ];
  static flags = {
    checkpoint: Flags.string({
      description: 'A checkpoint kept outside the project to prove the log consistent with (repeatable).',
      multiple: true,
    }),
    key: Flags.string({
      description:
        "Verifier key (a file, or the key itself) whose checkpoints count, these alone (repeatable); default: log.trusted_keys, else the project's key and those the log's writers announced.",
      multiple: true,
    }),
    offline: Flags.string({ description: 'Check this export (jsonl) instead of a project log: needs no project.' }),
    proof: Flags.string({
      description: 'An inclusion proof from `factorly logs prove --json` to check offline (repeatable).',
      multiple: true,
    }),
    json: Flags.boolean({ description: 'Print the report as JSON.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(LogsVerify);
    // 1 is for evidence of tampering only: a key, a checkpoint or a log that cannot be used is 2.
    await this.verify(flags).catch((error: unknown) => {
      throw couldNotVerify(error);
    });
  }

  private async verify(flags: VerifyFlags): Promise<void> {
    if (flags.offline !== undefined || flags.proof) return this.offline(flags);
    const paths = await projectLogPaths(flags.config);
    const checkpoints = readCheckpoints(flags.checkpoint ?? []);
    // Keys the auditor names restrict whose checkpoints count; else the project's and its writers' own.
    const trusted = flags.key ?? (await projectTrustedKeys(paths));
    const verifiers = readVerifiers(trusted, paths.stateDir);
    const restricted = trusted.length > 0;
    if (checkpoints.length > 0 && verifiers.length === 0)
      throw new FactorlyError('LOG_UNREADABLE', 'no verifier key to check the checkpoints with: pass --key FILE');
    if ((await projectLogEngine(paths)) !== 'lmdb')
      return this.print(await this.readAndVerify(flags.config, { checkpoints, verifiers, restricted }), flags.json);
    if (!existsSync(paths.logPath)) {
      if (checkpoints.length > 0)
        throw new FactorlyError('LOG_UNREADABLE', `no event log at ${paths.logPath} to check the checkpoints against`);
      if (flags.json)
        this.writeJson({ ok: true, status: 'verified', verified: 0, events: 0, findings: [], checkpoints: [] });
      else this.log('Chain verified: 0 events OK (nothing recorded yet)');
      return;
    }
    const { verifyLogFile } = await import('../../events/verify-log.js');
    const { readableLogError } = await import('../../cli/project-log.js');
    // The project's plugins are loaded only when the file keeps derived state factorly's own code does not know.
    const { unknownStoredViews } = await import('../../events/verify-derived.js');
    const { views, unloaded } =
      (await unknownStoredViews(paths.logPath)).length > 0
        ? await this.views(flags.config)
        : { views: undefined, unloaded: undefined };
    const report = await verifyLogFile(paths.logPath, { checkpoints, verifiers, restricted, views }).catch(
      (error: unknown) => {
        throw readableLogError(paths.logPath, error);
      },
    );
    this.print({ ...report, ...(unloaded ? { unloaded } : {}) }, flags.json);
  }

  /** The projections and indexes to re-derive: the ones this project's plugins and rules keep too. */
  private async views(configPath: string | undefined) {
    const { verificationViews } = await import('../../cli/verify-views.js');
    return verificationViews(() => this.kernel(configPath, { expandTools: false }));
  }

  /**
   * A log with no file here (a shared stream): verified from its events as they are read, and the
   * snapshots it keeps beside them re-folded: those of every projection this project's writers keep
   * (its plugins loaded to find them, and to open the stream as a call does). The log is opened to
   * read only: verifying writes nothing to it, not even snapshots.
   */
  private async readAndVerify(
    configPath: string | undefined,
    options: VerifyOptions,
  ): Promise<LogVerification & { unloaded?: string }> {
    const { verifyEventLog } = await import('../../events/verify-events.js');
    const kernel = await this.kernel(configPath, { expandTools: false });
    const log = kernel.openLog(kernel.config.log, { snapshots: false });
    try {
      const { verificationViews } = await import('../../cli/verify-views.js');
      const { views } = await verificationViews(() => Promise.resolve(kernel));
      return await verifyEventLog(log, { ...options, views });
    } finally {
      await log.close();
    }
  }

  private async offline(flags: VerifyFlags): Promise<void> {
    const { verifyOffline } = await import('../../events/verify-offline.js');
    const { readEvidenceFile } = await import('../../evidence/evidence-files.js');
    const verifiers = readVerifiers(flags.key ?? [], undefined);
    if (verifiers.length === 0)
      throw new FactorlyError(
        'USAGE',
        'offline verification needs the verifier key: pass --key FILE (factorly logs key prints it)',
      );
    const report = await verifyOffline({
      export: flags.offline,
      checkpoints: readCheckpoints(flags.checkpoint ?? []),
      proofs: (flags.proof ?? []).map((path) => ({ name: path, text: readEvidenceFile(path, 'proof') })),
      verifiers,
    });
    this.print(report, flags.json);
  }

  private print(report: LogVerification & { unloaded?: string }, json: boolean): void {
    if (json) this.writeJson(report);
    else {
      // Reasons quote what the log holds (ids, names): printed as one safe line each.
      const { out, err } = renderVerification(report);
      if (out.length > 0) this.log(out.map(printableLine).join('\n'));
      if (err.length > 0) process.stderr.write(`${err.map(printableLine).join('\n')}\n`);
    }
    // Tampering found is the answer; failing that, a checkpoint that could not be read leaves it open.
    const unreadable = report.checkpoints.filter((checkpoint) => checkpoint.status === 'unreadable');
    if (!json)
      for (const checkpoint of unreadable)
        process.stderr.write(`${printableLine(`Could not read ${checkpoint.reason}`)}\n`);
    if (!report.ok) process.exitCode = 1;
    else if (unreadable.length > 0) process.exitCode = 2;
  }
}
