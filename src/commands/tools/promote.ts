import { Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { paragraphs } from '../../cli/help-text.js';

export default class ToolsPromote extends FactorlyCommand {
  static summary = 'Turn a recorded script run (factorly.code, a code tool) into a named tool.';
  static description = paragraphs`Finds the most recent run whose source sha starts with --from-sha (see source_sha in
\`factorly logs --json\`), asks the provider of its tool for the entry that does the same (a code
tool: the script, with parameters inferred from the values it ran with, which become defaults),
checks that it compiles, and writes .factorly/<name>.yaml. With --to-file the script goes into a file of
its own beside it (.factorly/<name>.js, named by \`code_file:\`), to edit and review as code.`;
  static examples = [
    '<%= config.bin %> tools promote --from-sha 8e3c1a --name cards.summary',
    '<%= config.bin %> tools promote --from-sha 8e3c1a --name cards.summary --to-file',
  ];
  static flags = {
    'from-sha': Flags.string({ description: 'Source sha prefix of the run (at least 4 hex chars).', required: true }),
    name: Flags.string({ description: 'Name of the new tool.', required: true }),
    description: Flags.string({ description: 'Tool description (default: where it came from).' }),
    overwrite: Flags.boolean({ description: 'Replace a tool of that name promoted earlier.' }),
    'no-confirm': Flags.boolean({ description: 'Do not add shadow.confirm: true.' }),
    'to-file': Flags.boolean({ description: 'Write the script as a file beside the YAML (code_file:).' }),
    json: Flags.boolean({ description: 'Print the result as JSON.' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ToolsPromote);
    const kernel = await this.kernel(flags.config);
    const { promote } = await import('../../editing/promote.js');
    const plan = await promote(kernel, {
      fromSha: flags['from-sha'],
      name: flags.name,
      description: flags.description,
      overwrite: flags.overwrite,
      confirm: !flags['no-confirm'],
      toFile: flags['to-file'],
    });
    if (flags.json) {
      this.writeJson({
        name: plan.name,
        file: plan.file,
        ...(plan.script ? { scriptFile: plan.script.file } : {}),
        sha: plan.run.source.sha,
        fromCall: plan.run.callId,
        parameters: plan.parameters,
      });
      return;
    }
    const lines = [
      `Promoted ${plan.run.tool} run ${plan.run.source.sha.slice(0, 8)} → tool "${plan.name}"`,
      `  Wrote ${plan.file}${plan.script ? ` and ${plan.script.file}` : ''}`,
      plan.parameters.length === 0
        ? '  No parameters (the run had none).'
        : `  Inferred ${plan.parameters.length} parameter(s) from the run:`,
      ...plan.parameters.map((p) => `    - ${p.name} (${p.type}) = ${JSON.stringify(p.default ?? null)}`),
      `  Try it: factorly call ${plan.name}${plan.parameters.map((p) => ` --${p.name} …`).join('')}`,
      ...(flags['no-confirm'] ? [] : ['  shadow.confirm: true (the tool will ask before each call)']),
    ];
    process.stderr.write(`${lines.join('\n')}\n`);
  }
}
