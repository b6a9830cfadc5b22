import { existsSync } from 'node:fs';
import { Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { openExistingLog, openLogAt, projectLogEngine, projectLogPaths } from '../../cli/project-log.js';
import { paragraphs } from '../../cli/help-text.js';

export default class LogsKey extends FactorlyCommand {
  static summary = "Print the verifier key of the project's checkpoints (C2SP signed-note, Ed25519).";
  static description = paragraphs`The key that signs checkpoints is made on first use and kept in .factorly/log.key (mode 0600),
or in the project vault with "log: {key: vault}"; its verifier key is also written to .factorly/log.pub.
Give the verifier key this prints to whoever keeps or checks your checkpoints: with it, and nothing
else of the project, they run factorly logs verify --offline ... --key <file>.`;
  static flags = { json: Flags.boolean({ description: 'Print the key, its name, ID and file as JSON.' }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(LogsKey);
    const paths = await projectLogPaths(flags.config);
    const { loadLogKey, publishedVerifierKey } = await import('../../evidence/log-key.js');
    const { verifierFromKey } = await import('../../events/signed-note.js');
    // The key file, else the published verifier key, else the key as the config keeps it (made now).
    const verifierKey =
      loadLogKey(paths.stateDir, 'unused', { create: false })?.verifierKey ??
      publishedVerifierKey(paths.stateDir) ??
      (await this.madeKey(flags.config, paths.logPath));
    const { name, keyId } = verifierFromKey(verifierKey);
    if (flags.json) this.writeJson({ verifierKey, name, keyId: keyId.toString(16).padStart(8, '0') });
    else this.log(verifierKey);
  }

  private async madeKey(configPath: string | undefined, logPath: string): Promise<string> {
    const { newOrigin } = await import('../../events/transparency-tree.js');
    const kernel = await this.kernel(configPath, { expandTools: false });
    return (await kernel.checkpoints.key((await this.origin(configPath, logPath)) ?? newOrigin())).verifierKey;
  }

  /** A new key is named after the log it signs for, when there is one (a shared stream's, or the file's). */
  private async origin(configPath: string | undefined, logPath: string): Promise<string | undefined> {
    const shared = (await projectLogEngine(await projectLogPaths(configPath))) !== 'lmdb';
    if (!shared && !existsSync(logPath)) return undefined;
    const log = shared ? (await openExistingLog(configPath))! : await openLogAt(logPath);
    try {
      return (await log.tree?.())?.origin;
    } finally {
      await log.close();
    }
  }
}
