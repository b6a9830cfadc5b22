import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { paragraphs } from '../../cli/help-text.js';

export default class LogsCheckpoint extends FactorlyCommand {
  static summary = "Sign a checkpoint of the log's Merkle tree now (C2SP tlog-checkpoint).";
  static description = paragraphs`Writes it to .factorly/checkpoints/, records it as log.checkpointed, hands it to the configured
witnesses (log.witness, log.witness_dir, --witness), and prints it (or writes it to -o FILE).
Keep a copy somewhere the log's writers cannot reach: factorly logs verify --checkpoint <copy> then
detects a rollback, a cut tail or a rewrite of everything it covers.`;
  static flags = {
    output: Flags.string({ char: 'o', description: 'Also write the checkpoint to this file.' }),
    witness: Flags.string({ description: 'Also copy it into this directory (repeatable).', multiple: true }),
    json: Flags.boolean({ description: 'Print origin, size, root hash, checkpoint, file and verifier key as JSON.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(LogsCheckpoint);
    const kernel = await this.kernel(flags.config, { expandTools: false });
    for (const dir of flags.witness ?? []) kernel.checkpoints.addWitnessDir(resolve(dir));
    const signed = await kernel.checkpoints.now();
    if (flags.output) writeFileSync(flags.output, signed.checkpoint);
    if (flags.json) this.writeJson(signed);
    else {
      process.stdout.write(signed.checkpoint);
      process.stderr.write(
        `Checkpoint of ${signed.size} events written to ${signed.file}${flags.output ? ` and ${flags.output}` : ''}\n`,
      );
    }
  }
}
