import { readFileSync } from 'node:fs';
import { FactorlyCommand } from '../cli/base-command.js';
import { CALL_USAGE, parseCallArgs } from '../cli/call-args.js';

export default class Call extends FactorlyCommand {
  static summary = 'Call a tool through factorly: validated, governed and recorded.';
  static description = `${CALL_USAGE}

Each --name value pair is a parameter. A bare --flag means "true"; "-" reads the value from stdin;
@path reads it from a file (@@x passes a literal "@x"). --params takes a JSON object for typed
values; flags override its keys. For a tool that has a parameter named "params" (factorly.code),
--params is that parameter's value instead. The tool's output goes to stdout (exact when piped; on a
terminal, control characters are shown escaped), its error to stderr, and the process exits with the
tool's exit code.`;
  static examples = ['<%= config.bin %> call greet --name Ada', `<%= config.bin %> call greet --params '{"name":"Ada"}' --json`];
  static strict = false;

  async run(): Promise<void> {
    const args = parseCallArgs(this.argv, () => readFileSync(0, 'utf8'));
    // A tool's params are its flags, so argv is parsed above rather than by oclif; tell oclif so.
    (this as unknown as { parsed: boolean }).parsed = true;
    const kernel = await this.kernel(args.configPath);
    const ownParams = kernel.registry.get(args.tool)?.parameters.some((spec) => spec.name === 'params') ?? false;
    const params = ownParams && args.jsonParams ? { ...args.flags, params: args.jsonParams } : args.params;
    const outcome = await kernel.pipeline.call({ tool: args.tool, params, iface: 'cli' });
    if (args.json) this.writeJson(outcome);
    else this.writeOutcome(outcome);
    process.exitCode = outcome.exitCode === 0 && outcome.error ? 1 : outcome.exitCode;
  }
}
