import { Args, Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { checkedLocalArgs, installChecked } from '../../cli/delegate-plugins.js';
import { paragraphs } from '../../cli/help-text.js';

export default class PluginsInstall extends FactorlyCommand {
  static summary = 'Install a plugin: an npm package name, a package directory or an `npm pack` tarball.';
  static description = paragraphs`A local package (a directory or a .tgz) is checked before anything of it is installed: a plugin
built for another plugin API ("factorly": {"apiVersion"}) or whose engines.factorly range excludes
this factorly is refused, naming both versions. A package from the registry (or a URL) is checked
the same way once npm has fetched it, and uninstalled again when it does not fit.`;
  static examples = [
    '<%= config.bin %> plugins install ./factorly-plugin-mine-1.0.0.tgz',
    '<%= config.bin %> plugins install factorly-plugin-mine',
  ];
  static strict = false;
  static args = {
    plugin: Args.string({ description: 'Package name, directory or tarball (several allowed).', required: true }),
  };
  static flags = {
    force: Flags.boolean({ description: 'Let npm refetch and reinstall.' }),
    silent: Flags.boolean({ char: 's', description: 'Print nothing from npm.' }),
    verbose: Flags.boolean({ char: 'v', description: "Show npm's output." }),
  };

  async run(): Promise<void> {
    await this.parse(PluginsInstall);
    await installChecked(this.config, checkedLocalArgs(this.argv, this.config, true));
  }
}
