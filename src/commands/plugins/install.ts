import { Args, Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { checkedLocalArgs, runOclifPluginsCommand } from '../../cli/delegate-plugins.js';

export default class PluginsInstall extends FactorlyCommand {
  static summary = 'Install a plugin: an npm package name, a package directory or an `npm pack` tarball.';
  static description = `A local package (a directory or a .tgz) is checked before anything of it is installed: a plugin
built for another plugin API ("factorly": {"apiVersion"}) or whose engines.factorly range excludes
this factorly is refused, naming both versions. A package from the registry is checked when it loads
(factorly plugins inspect shows it as failed, with the reason).`;
  static examples = ['<%= config.bin %> plugins install ./factorly-plugin-mine-1.0.0.tgz', '<%= config.bin %> plugins install factorly-plugin-mine'];
  static strict = false;
  static args = { plugin: Args.string({ description: 'Package name, directory or tarball (several allowed).', required: true }) };
  static flags = {
    force: Flags.boolean({ description: 'Let npm refetch and reinstall.' }),
    silent: Flags.boolean({ char: 's', description: 'Print nothing from npm.' }),
    verbose: Flags.boolean({ char: 'v', description: 'Show npm\'s output.' }),
  };

  async run(): Promise<void> {
    await this.parse(PluginsInstall);
    await runOclifPluginsCommand(this.config, 'plugins:install', checkedLocalArgs(this.argv, this.config, true));
  }
}
