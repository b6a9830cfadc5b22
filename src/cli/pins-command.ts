import { Args, Flags } from '@oclif/core';
import { FactorlyError } from '../base/errors.js';
import { printableLine } from '../base/printable.js';
import { PinTokens, type PinDecision, type ToolPins } from '../contracts/pins.js';
import { FactorlyCommand } from './base-command.js';

/** Shared by `factorly tools pins` and its subcommands: the pins plugin's view of the log's pins. */
export abstract class PinsCommand extends FactorlyCommand {
  static toolArg = { tool: Args.string({ description: 'The tool, by the name agents call it.', required: true }) };

  static digestFlag = {
    digest: Flags.string({
      description: 'The held definition, by its digest (a prefix will do); default: the newest held one.',
    }),
  };

  static jsonFlag = { json: Flags.boolean({ description: 'Print the result as one JSON object.' }) };

  protected async pins(configPath: string | undefined): Promise<ToolPins> {
    // Pins are read from the log: upstream servers are not started for it.
    const kernel = await this.kernel(configPath, { expandTools: false });
    const pins = kernel.provided(PinTokens.Pins);
    if (!pins) throw new FactorlyError('USAGE', 'tool pins are not available: the pins plugin is not loaded');
    return pins;
  }

  protected printDecision(decision: PinDecision, what: string): void {
    this.log(printableLine(`${what} ${decision.tool} (digest ${decision.digest.slice(0, 12)})`));
  }
}
