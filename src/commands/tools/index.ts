import { Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { sourceStatuses } from '../../cli/host-services.js';
import { table } from '../../cli/table.js';
import type { ToolDefinition } from '../../contracts/tool.js';

export default class Tools extends FactorlyCommand {
  static summary = 'List the tools factorly serves.';
  static flags = {
    json: Flags.boolean({ description: 'Print JSON: {tools: [...], sources: [...]} (each upstream and its state).' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Tools);
    const kernel = await this.kernel(flags.config);
    const tools = kernel.registry.visible();
    const sources = sourceStatuses(kernel);
    if (flags.json) {
      this.writeJson({ tools: tools.map(describe), sources });
      return;
    }
    const width = process.stdout.columns || 100;
    if (tools.length === 0)
      this.log(`No tools configured. Add one to ${kernel.config.files[0] ?? '.factorly/factorly.yaml'}.`);
    else {
      const rows = tools.map((tool) => [tool.name, tool.type, firstLine(tool.description), paramSummary(tool)]);
      this.log(table(['NAME', 'TYPE', 'DESCRIPTION', 'PARAMETERS'], rows, width, 2));
    }
    // Where each upstream stands: one that is not connected contributes none of the tools above.
    if (sources.length > 0) {
      const rows = sources.map((source) => [source.name, source.type, source.state, source.reason ?? '']);
      this.log(`\n${table(['SOURCE', 'TYPE', 'STATE', 'REASON'], rows, width, 3)}`);
    }
  }
}

export function describe(tool: ToolDefinition) {
  return {
    name: tool.name,
    type: tool.type,
    description: tool.description,
    hidden: tool.hidden,
    parameters: tool.parameters,
    source: tool.source,
  };
}

function paramSummary(tool: ToolDefinition): string {
  return tool.parameters.map((p) => (p.required && p.default === undefined ? p.name : `[${p.name}]`)).join(' ');
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? ''
  );
}
