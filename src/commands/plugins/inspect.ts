import { Args, Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { FactorlyError } from '../../base/errors.js';
import type { PluginInventory } from '../../plugins/inventory.js';
import { paragraphs } from '../../cli/help-text.js';

export default class PluginsInspect extends FactorlyCommand {
  static summary = 'Show factorly plugins by id or package name: kind, load status and what each contributes.';
  static description = paragraphs`For each plugin (or the one named): where it comes from (core, user, link), whether it loaded (and
why not), what it adds to each extension point (tool types, rules, engines, interfaces, output
processors, confirm channels, secret backends, tool sources), the tokens it provides to other plugins
and the config keys it owns (its top-level block, tool keys, shadow keys). Plugins load as they
would for this project (-c or the discovered config).`;
  static examples = ['<%= config.bin %> plugins inspect', '<%= config.bin %> plugins inspect shadow --json'];
  static args = {
    id: Args.string({ description: 'A plugin id, as `factorly plugins inspect` lists them, or its npm package name.' }),
  };
  static flags = { json: Flags.boolean({ description: 'Print JSON (an array of plugins; one object with an id).' }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(PluginsInspect);
    const kernel = await this.kernel(flags.config);
    const all = kernel.inventory();
    // Named by its id or by its npm package's name (what `plugins install` was given).
    const packages = new Map(this.config.getPluginsList().map((plugin) => [plugin.root, plugin.name]));
    const chosen =
      args.id === undefined
        ? all
        : all.filter((plugin) => plugin.id === args.id || packages.get(plugin.root) === args.id);
    if (args.id !== undefined && chosen.length === 0) {
      throw new FactorlyError(
        'USAGE',
        `no plugin "${args.id}" (plugins: ${all.map((plugin) => plugin.id).join(', ')})`,
      );
    }
    if (flags.json) {
      this.writeJson(args.id === undefined ? chosen : chosen[0]);
      return;
    }
    this.log(chosen.map(describe).join('\n\n'));
  }
}

function describe(plugin: PluginInventory): string {
  const head = `${plugin.id}  ${plugin.status}${plugin.source ? `  ${plugin.source}` : ''}${plugin.version ? `  ${plugin.version}` : ''}  ${plugin.root}`;
  const lines = [head];
  if (plugin.reason) lines.push(`  reason: ${plugin.reason} (${plugin.code})`);
  for (const [point, names] of Object.entries(plugin.contributes)) lines.push(`  ${point}: ${names.join(', ')}`);
  if (plugin.provides.length > 0) lines.push(`  provides: ${plugin.provides.join(', ')}`);
  const { settings, tool, shadow } = plugin.config;
  if (settings.length > 0) lines.push(`  config: ${settings.join(', ')}`);
  if (tool.length > 0) lines.push(`  tool keys: ${tool.join(', ')}`);
  if (shadow.length > 0) lines.push(`  shadow keys: ${shadow.map((key) => `shadow.${key}`).join(', ')}`);
  return lines.join('\n');
}
