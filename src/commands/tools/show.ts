import { Args, Flags } from '@oclif/core';
import { stringify } from 'yaml';
import { FactorlyCommand } from '../../cli/base-command.js';
import { FactorlyError } from '../../base/errors.js';
import { printableText } from '../../base/printable.js';
import { didYouMean } from '../../base/suggest.js';
import type { ToolDefinition } from '../../contracts/tool.js';
import { describe } from './index.js';

export default class ToolsShow extends FactorlyCommand {
  static summary = 'Show one tool: its definition, parameters and where it is configured.';
  static args = { name: Args.string({ description: 'Tool name.', required: true }) };
  static flags = { json: Flags.boolean({ description: 'Print JSON.' }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ToolsShow);
    const kernel = await this.kernel(flags.config);
    const tool = kernel.registry.get(args.name);
    if (!tool) {
      const names = kernel.registry.visible().map((t) => t.name);
      throw new FactorlyError('TOOL_NOT_FOUND', `tool "${args.name}" is not configured${didYouMean(args.name, names)}`);
    }
    if (flags.json) {
      this.writeJson({
        ...describe(tool),
        spec: tool.spec,
        shadow: tool.shadow,
        timeoutMs: tool.timeoutMs,
        maxOutput: tool.maxOutput,
      });
      return;
    }
    this.log(`# ${tool.source.file}:${tool.source.line}`);
    process.stdout.write(printableText(stringify({ [tool.name]: asYaml(tool) })));
  }
}

function asYaml(tool: ToolDefinition): Record<string, unknown> {
  const parameters = tool.parameters.map(({ minLength, maxLength, hydrateVaultRefs, apiName, ...rest }) => ({
    ...rest,
    ...(apiName === undefined ? {} : { api_name: apiName }),
    ...(minLength === undefined ? {} : { min_length: minLength }),
    ...(maxLength === undefined ? {} : { max_length: maxLength }),
    ...(hydrateVaultRefs ? { hydrate_vault_refs: hydrateVaultRefs.map((reference) => `{{${reference}}}`) } : {}),
  }));
  return {
    type: tool.type,
    ...(tool.description ? { description: tool.description } : {}),
    ...(tool.hidden ? { hidden: true } : {}),
    ...(tool.timeoutMs === undefined ? {} : { timeout: `${tool.timeoutMs}ms` }),
    ...(tool.maxOutput === undefined ? {} : { max_output: tool.maxOutput }),
    ...tool.spec,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(tool.shadow ? { shadow: tool.shadow } : {}),
  };
}
