import { Errors, Help } from '@oclif/core';
import { messageOf } from '../base/errors.js';
import { reportUnknownCommand } from './command-not-found.js';

/**
 * oclif's help, except for a command that does not exist (`factorly help cal`, `factorly cal --help`):
 * reported as running it would be, with the closest commands, instead of "Command cal not found."
 */
export default class FactorlyHelp extends Help {
  async showHelp(argv: string[]): Promise<void> {
    try {
      await super.showHelp(argv);
    } catch (error) {
      // The one error oclif's help raises of its own, worded in @oclif/core help/index.ts.
      const unknown = /^Command (.+) not found\.$/.exec(messageOf(error));
      if (!unknown) throw error;
      Errors.exit(reportUnknownCommand(unknown[1], argv, this.config));
    }
  }
}
