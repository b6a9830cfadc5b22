import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { copyEvents } from '../events/copy-log.js';
import type { EventLog, LogHead } from '../events/log.js';
import { verifyChain } from '../events/verify.js';
import { FactorlyError } from '../base/errors.js';
import type { Kernel } from '../kernel/kernel.js';
import type { BareLogUse } from '../kernel/log-engines.js';

/** One end of a migration: what it is called in messages, and how it opens. */
export interface LogSide {
  name: string;
  open(): EventLog;
}

/** The project's LMDB file; as the source (`clock` not given) it must be there. */
export function lmdbSide(kernel: Kernel, clock?: () => Date): LogSide {
  const { paths } = kernel;
  const name = relative(process.cwd(), paths.logPath) || paths.logPath;
  return {
    name,
    open: () => {
      if (!clock && !existsSync(paths.logPath))
        throw new FactorlyError('USAGE', `migrate: no event log at ${name} to copy`);
      return kernel.openLog({ ...kernel.config.log, engine: 'lmdb', engineOptions: {} }, copyTarget(clock));
    },
  };
}

/** The stream of the `log:` block (when it names the nats engine), with the keys given on the command line laid over it. */
export function natsSide(
  kernel: Kernel,
  given: { servers?: string[]; stream?: string; replicas?: number },
  clock?: () => Date,
): LogSide {
  const base = kernel.config.log;
  const options = { ...(base.engine === 'nats' ? base.engineOptions : {}) };
  if (given.servers) options.servers = given.servers;
  if (given.stream) options.stream = given.stream;
  if (given.replicas !== undefined) options.replicas = given.replicas;
  const settings = { ...base, engine: 'nats', engineOptions: options };
  return {
    name: `the NATS stream ${String(options.stream ?? '(none)')}`,
    open: () => {
      if (options.servers === undefined || options.stream === undefined) {
        throw new FactorlyError(
          'USAGE',
          'migrate: which NATS stream? Name it in the log: block (engine: nats) or with --servers and --stream',
        );
      }
      return kernel.openLog(settings, copyTarget(clock));
    },
  };
}

/** A copy's target (`clock` given) keeps each event's own time and no snapshots of its own; the source is opened as it is. */
function copyTarget(clock: (() => Date) | undefined): BareLogUse {
  return clock ? { clock, snapshots: false } : {};
}

export interface MigrateReport {
  from: string;
  to: string;
  events: number;
  head: LogHead;
}

/** Verifies the source, refuses a target holding events, copies, and verifies the copy against the source's head. */
export async function migrateLog(parts: {
  source: EventLog;
  target: EventLog;
  from: string;
  to: string;
  setTime(at: Date): void;
}): Promise<MigrateReport> {
  const { source, target, from, to } = parts;
  const before = await verifyChain(source.read());
  if (!before.ok)
    throw new FactorlyError(
      'LOG_CORRUPT',
      `migrate: ${from} does not verify (${before.firstBad?.reason} at seq ${before.firstBad?.seq}): nothing copied`,
    );
  const head = await source.head();
  const present = (await target.head()).seq;
  if (present > 0)
    throw new FactorlyError('USAGE', `migrate: ${to} already holds ${present} events: copy only into an empty log`);
  let shown = 0;
  const copied = await copyEvents(source, target, parts.setTime, (done, total) => {
    if (done - shown < 10_000 && done !== total) return;
    shown = done;
    process.stderr.write(`copied ${done} of ${total} events\n`);
  });
  const after = await verifyChain(target.read());
  if (!after.ok || copied.seq !== head.seq || copied.hash !== head.hash) {
    throw new FactorlyError(
      'LOG_CORRUPT',
      `migrate: the copy in ${to} does not match ${from} (head ${copied.seq} ${copied.hash}, expected ${head.seq} ${head.hash})`,
    );
  }
  return { from, to, events: head.seq, head };
}
