import { Args, Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { checkedPluginArgs, installChecked } from '../../cli/delegate-plugins.js';
import { ignorePeerDependencies } from '../../cli/plugin-fetch.js';
import { paragraphs } from '../../cli/help-text.js';

export default class PluginsInstall extends FactorlyCommand {
  static summary = 'Install a plugin: an npm package name, a package directory or an `npm pack` tarball.';
  static description = paragraphs`The package is checked before any of it is installed or any of its scripts runs: a directory or
a .tgz where it is, a registry name once \`npm pack\` has fetched its tarball (then installed at the
version read). A package with no "factorly" key, one built for another plugin API
("factorly": {"apiVersion"}) or whose engines.factorly range excludes this factorly is refused,
naming both versions; a git or https URL is checked once npm has installed it, and uninstalled
again when it does not fit. A peer dependency on factorly is served by the running factorly, never
fetched. Plugins go to factorly's data dir ($FACTORLY_DATA_DIR, else $XDG_DATA_HOME/factorly, else
~/.local/share/factorly).`;
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
    const argv = checkedPluginArgs(this.argv, this.config, 'install');
    ignorePeerDependencies(this.config);
    await installChecked(this.config, argv);
  }
}
