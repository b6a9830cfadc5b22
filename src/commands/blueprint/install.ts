import { Args, Flags } from '@oclif/core';
import { BlueprintCommand } from '../../cli/blueprints/command.js';
import { paragraphs } from '../../cli/help-text.js';
import { planBlueprint } from '../../cli/blueprints/plan.js';
import { parseSets, SETTABLE_KEYS } from '../../cli/blueprints/text.js';

export default class BlueprintInstall extends BlueprintCommand {
  static summary = 'Install a blueprint: a bundled one, a file or a URL.';
  static description = paragraphs`Reads the blueprint, checks it against your config (names already taken, what it
requires), shows every tool, OAuth provider, host it talks to and vault key it needs, asks for the missing
keys with echo off (or lists them with --no-prompt), then writes .factorly/blueprints/<name>.yaml. A
running factorly serve picks it up at once. A URL is fetched through the same guard as factorly.fetch
(no loopback, private or metadata address). --set points the blueprint at another host (a self-hosted
GitLab, GitHub Enterprise, a test server): base_url for its rest tools, url for its MCP servers,
auth_url, token_url or issuer for its OAuth providers; the installed file records it.`;
  static examples = [
    '<%= config.bin %> blueprint install github',
    '<%= config.bin %> blueprint install gitlab --set base_url=https://gitlab.example.com/api/v4',
    '<%= config.bin %> blueprint install ./acme.yaml --dry-run',
  ];
  static args = {
    source: Args.string({
      description: 'A bundled blueprint name, a path to a YAML file, or an https:// URL.',
      required: true,
    }),
  };
  static flags = {
    ...BlueprintCommand.installFlags,
    set: Flags.string({
      description: `Point the blueprint elsewhere: key=url, key one of ${SETTABLE_KEYS.join(', ')} (repeatable).`,
      multiple: true,
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(BlueprintInstall);
    const set = parseSets(flags.set ?? []);
    const kernel = await this.projectKernel(flags.config);
    const plan = await planBlueprint(kernel, { source: args.source, set }, { cwd: process.cwd() });
    await this.install(kernel, plan, flags);
  }
}
