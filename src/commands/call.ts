import { Args, Flags } from '@oclif/core';
import { FactorlyCommand } from '../cli/base-command.js';
import { CALL_SYNOPSIS } from '../cli/call-args.js';
import { runCall } from '../cli/call-run.js';
import { paragraphs } from '../cli/help-text.js';

export default class Call extends FactorlyCommand {
  static summary = 'Call a tool through factorly: validated, governed and recorded.';
  static description = paragraphs`Each --name value pair is a parameter. A bare --flag means "true"; "-" reads the value
from stdin; @path reads it from a file (@@x passes a literal "@x"). --params takes a JSON object for typed values;
flags override its keys. For a tool that has a parameter named "params" (factorly.code), --params is that
parameter's value instead.

The tool's output goes to stdout (exact when piped; on a terminal, control characters are shown escaped), its error
to stderr, and the process exits with the tool's exit code.`;
  static usage = CALL_SYNOPSIS;
  static examples = [
    '<%= config.bin %> call greet --name Ada',
    `<%= config.bin %> call greet --params '{"name":"Ada"}' --json`,
    'echo Ada | <%= config.bin %> call greet --name -',
  ];
  // For --help and the manifest only: runCall parses argv itself (see run).
  static args = {
    tool: Args.string({ description: 'The tool to call, as `factorly tools` lists it.', required: true }),
  };
  static flags = {
    params: Flags.string({ description: 'The params as one JSON object (--name value flags override its keys).' }),
    json: Flags.boolean({ description: "Print the tool's outcome as JSON: status, output, error, exit code." }),
  };

  async run(): Promise<void> {
    // A tool's params are its flags, so argv is parsed by runCall rather than by oclif; tell oclif so.
    (this as unknown as { parsed: boolean }).parsed = true;
    process.exitCode = await runCall(this.argv, this.pluginSources());
  }
}
