import { Args } from '@oclif/core';
import { readSecretInput } from '../../cli/hidden-input.js';
import { VaultCommand } from '../../cli/vault-command.js';
import { paragraphs } from '../../cli/help-text.js';

export default class VaultSet extends VaultCommand {
  static summary = 'Store a secret in the encrypted vault.';
  static description = paragraphs`Without a value, the value is read with echo off on a terminal, or from stdin when piped
(a value given as an argument stays in your shell history). Tools use it as {{vault:KEY}}.`;
  static examples = [
    '<%= config.bin %> vault set GITHUB_TOKEN',
    'echo "$TOKEN" | <%= config.bin %> vault set GITHUB_TOKEN --global',
    'echo "$TOKEN" | <%= config.bin %> vault set GITHUB_TOKEN --backend mystore',
  ];
  static args = {
    key: Args.string({ description: 'Key name: letters, digits, "_", ".", "-", "/".', required: true }),
    value: Args.string({ description: 'The value (prompted for when omitted).' }),
  };
  static flags = { ...VaultCommand.vaultFlags, ...VaultCommand.writableBackendFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(VaultSet);
    const { kernel, backend } = await this.backend(flags.config, flags.backend, 'write');
    const value = args.value ?? (await readSecretInput('Value: '));
    const { tier } = await backend.write!(args.key, value, this.access(flags));
    await this.record(kernel, { op: 'set', key: args.key, tier });
    if (flags.json) this.writeJson({ op: 'set', key: args.key, tier });
    else this.log(`Stored ${args.key} in ${this.placeOf(flags.backend, tier)}`);
  }
}
