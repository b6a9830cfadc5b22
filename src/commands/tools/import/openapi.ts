import { Args, Flags } from '@oclif/core';
import { BlueprintCommand } from '../../../cli/blueprints/command.js';
import { paragraphs } from '../../../cli/help-text.js';
import { planBlueprint } from '../../../cli/blueprints/plan.js';
import { importOpenApi } from '../../../cli/openapi/import.js';

export default class ToolsImportOpenapi extends BlueprintCommand {
  static summary = 'Turn an OpenAPI 3.x or Swagger 2.0 description into REST tools (installed as a blueprint).';
  static description = paragraphs`Each operation becomes a rest tool named <prefix>.<operationId> (or method and path),
its parameters typed from the spec's schemas, the spec's server as base_url and its security schemes as
vault keys or an OAuth provider. The tools are written as the blueprint .factorly/blueprints/<prefix>.yaml,
so blueprint list, show and uninstall manage them. Writing operations (POST, PUT, PATCH, DELETE) ask
for your approval before each call unless --no-confirm. $refs resolve only inside the spec's folder; a
URL (and a remote $ref) is fetched through the same guard as factorly.fetch.`;
  static examples = [
    '<%= config.bin %> tools import openapi ./petstore.yaml --dry-run',
    '<%= config.bin %> tools import openapi https://api.example.com/openapi.json --prefix acme --select listOrders --select getOrder',
  ];
  static args = {
    spec: Args.string({ description: 'The spec: a JSON or YAML file, or an https:// URL.', required: true }),
  };
  static flags = {
    ...BlueprintCommand.installFlags,
    prefix: Flags.string({ description: 'Tool name prefix and blueprint name (default: from the spec title).' }),
    select: Flags.string({
      description: 'Import only this operation (operationId, "METHOD /path" or tool name); repeatable.',
      multiple: true,
    }),
    'base-url': Flags.string({ description: 'Call the API here instead of the spec’s servers.' }),
    'no-confirm': Flags.boolean({ description: 'Do not make writing operations ask before each call.' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ToolsImportOpenapi);
    const cwd = process.cwd();
    const made = await importOpenApi(
      { spec: args.spec },
      {
        prefix: flags.prefix,
        select: flags.select,
        baseUrl: flags['base-url'],
        confirmWrites: !flags['no-confirm'],
      },
      { cwd },
    );
    if (!flags.json) {
      for (const line of made.collisions) process.stderr.write(`  Renamed: ${line}\n`);
      for (const line of made.skipped) process.stderr.write(`  Left out: ${line}\n`);
    }
    const kernel = await this.projectKernel(flags.config);
    const plan = await planBlueprint(kernel, { text: made.yaml, label: `openapi:${args.spec}` }, { cwd });
    await this.install(kernel, plan, flags, { collisions: made.collisions, skipped: made.skipped });
  }
}
