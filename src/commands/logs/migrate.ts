import { Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import type { EventLog } from '../../events/log.js';
import { FactorlyError } from '../../base/errors.js';
import { paragraphs } from '../../cli/help-text.js';

export default class LogsMigrate extends FactorlyCommand {
  static summary = "Copy every event between the project's LMDB log and a NATS JetStream stream.";
  static description = paragraphs`Copies each event as it is (same seq, id, time, hash), so the chain, the Merkle tree and every
checkpoint signed over it stay valid.

--to nats copies .factorly/events.lmdb to the stream the log:
block names (engine: nats), or the one --servers/--stream name; --to lmdb copies that stream to
.factorly/events.lmdb. The source's chain is verified before, the copy's after; a target that
holds any event is refused. Then set log.engine to the target's. Progress goes to stderr.`;
  static examples = [
    '<%= config.bin %> logs migrate --to nats --servers nats://10.0.0.5:4222 --stream factorly-team',
    '<%= config.bin %> logs migrate --to lmdb --json',
  ];
  static flags = {
    to: Flags.string({ description: 'The log to copy into.', options: ['nats', 'lmdb'], required: true }),
    servers: Flags.string({ description: "NATS server URL (repeatable); default: the log: block's.", multiple: true }),
    stream: Flags.string({ description: "The JetStream stream; default: the log: block's." }),
    replicas: Flags.integer({
      description: "Replicas of a stream created by the copy; default: the log: block's, or 1.",
    }),
    json: Flags.boolean({ description: 'Print the report as JSON.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(LogsMigrate);
    const kernel = await this.kernel(flags.config, { expandTools: false });
    const { lmdbSide, natsSide } = await import('../../cli/log-migrate.js');
    let time = new Date();
    const clock = () => time;
    const lmdb = lmdbSide(kernel, flags.to === 'lmdb' ? clock : undefined);
    const nats = natsSide(
      kernel,
      { servers: flags.servers, stream: flags.stream, replicas: flags.replicas },
      flags.to === 'nats' ? clock : undefined,
    );
    const [from, to] = flags.to === 'nats' ? [lmdb, nats] : [nats, lmdb];
    const opened: EventLog[] = [];
    try {
      const source = from.open();
      opened.push(source);
      const target = to.open();
      opened.push(target);
      const { migrateLog } = await import('../../cli/log-migrate.js');
      const report = await migrateLog({ source, target, from: from.name, to: to.name, setTime: (at) => (time = at) });
      if (flags.json) this.writeJson(report);
      else
        this.log(
          `Copied ${report.events} events from ${report.from} to ${report.to}; both chains verified, head ${report.head.seq} ${report.head.hash}. Set log.engine: ${flags.to} to use it.`,
        );
    } catch (error) {
      throw FactorlyError.isInstance(error)
        ? error
        : new FactorlyError('LOG_WRITE_FAILED', `migrate: ${(error as Error).message}`, { cause: error });
    } finally {
      for (const log of opened.reverse()) await log.close().catch(() => undefined);
    }
  }
}
