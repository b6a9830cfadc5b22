import { Args, Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { checkedPluginArgs, runOclifPluginsCommand } from '../../cli/delegate-plugins.js';
import { ignorePeerDependencies } from '../../cli/plugin-fetch.js';
import { paragraphs } from '../../cli/help-text.js';

export default class PluginsLink extends FactorlyCommand {
  static summary = 'Link a plugin package directory into factorly (for developing a plugin).';
  static description = paragraphs`The package is checked first: a plugin built for another plugin API ("factorly": {"apiVersion"})
or whose engines.factorly range excludes this factorly is refused, naming both versions. Its code
then loads from the directory on every start, so edits show at once.`;
  static examples = ['<%= config.bin %> plugins link .', '<%= config.bin %> plugins link ../my-plugin --no-install'];
  static args = { path: Args.string({ description: 'The plugin package directory.', default: '.' }) };
  static flags = {
    install: Flags.boolean({
      description: "Install the package's dependencies after linking it.",
      default: true,
      allowNo: true,
    }),
    verbose: Flags.boolean({ char: 'v', description: "Show npm's output." }),
  };

  async run(): Promise<void> {
    const { args } = await this.parse(PluginsLink);
    const argv = this.argv.length > 0 ? this.argv : [args.path];
    const checked = checkedPluginArgs(argv, this.config, 'link');
    ignorePeerDependencies(this.config);
    await runOclifPluginsCommand(this.config, 'plugins:link', checked);
  }
}
