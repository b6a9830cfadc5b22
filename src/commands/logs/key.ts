import { existsSync } from 'node:fs';
import { Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { openLogAt, projectLogPaths } from '../../cli/project-log.js';

export default class LogsKey extends FactorlyCommand {
  static summary = "Print the verifier key of the project's checkpoints (C2SP signed-note, Ed25519).";
  static description = `The key that signs checkpoints is made on first use and kept in .factorly/log.key (mode 0600).
Give the verifier key this prints to whoever keeps or checks your checkpoints: with it, and nothing
else of the project, they run factorly logs verify --offline ... --key <file>.`;
  static flags = { json: Flags.boolean({ description: 'Print the key, its name, ID and file as JSON.' }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(LogsKey);
    const paths = await projectLogPaths(flags.config);
    const { loadLogKey, logKeyPath } = await import('../../kernel/log-key.js');
    const { newOrigin } = await import('../../events/transparency-tree.js');
    const signer = loadLogKey(paths.stateDir, await this.origin(paths.logPath) ?? newOrigin())!;
    if (flags.json) this.writeJson({ verifierKey: signer.verifierKey, name: signer.name, keyId: signer.keyId.toString(16).padStart(8, '0'), file: logKeyPath(paths.stateDir) });
    else this.log(signer.verifierKey);
  }

  /** A new key is named after the log it signs for, when there is one. */
  private async origin(logPath: string): Promise<string | undefined> {
    if (!existsSync(logPath)) return undefined;
    const log = await openLogAt(logPath);
    try {
      return (await log.tree?.())?.origin;
    } finally {
      await log.close();
    }
  }
}
