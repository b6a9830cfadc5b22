import { toConfiguredId, type Hook, type Interfaces } from '@oclif/core';
import { FactorlyError } from '../base/errors.js';
import { didYouMean } from '../base/suggest.js';
import { reportFailure } from './person-output.js';

/**
 * oclif's `command_not_found` hook: `factorly cal` is a USAGE error (exit 2) naming the closest
 * commands, and where the list is, instead of oclif's bare "command cal not found". It never
 * prompts: a script that mistyped a command must fail, not wait.
 */
const commandNotFound: Hook<'command_not_found'> = function (options) {
  this.exit(reportUnknownCommand(options.id, options.argv ?? [], options.config));
  return Promise.resolve();
};

/** Reports `id` (`cal`, `vault:lst`) as an unknown command with the closest ones; returns the exit code. */
export function reportUnknownCommand(id: string, argv: readonly string[], config: Interfaces.Config): number {
  const { typed, siblings } = unknownPart(id.split(':'), config);
  const show = (words: readonly string[]): string => toConfiguredId(words.join(':'), config);
  const candidates = new Map(siblings.map((name) => [name.at(-1)!, show(name)]));
  const near = didYouMean(typed.at(-1)!, candidates.keys());
  // didYouMean quotes the last words it found; name the whole command instead.
  const suggestion = near.replace(/"([^"]+)"/g, (_, word: string) => `"${candidates.get(word)}"`);
  const error = new FactorlyError('USAGE', `unknown command "${show(typed)}"${suggestion}`);
  return reportFailure(error, { json: argv.includes('--json'), hint: `See \`${config.bin} help\` for every command.` });
}

/**
 * oclif joins every word before the first flag into the id (`cal greet` → `cal:greet`): the unknown
 * command is the known topics it starts with plus the first word that is none, and its candidates
 * are the commands and topics beside that word.
 */
function unknownPart(words: readonly string[], config: Interfaces.Config): { typed: string[]; siblings: string[][] } {
  const names = [
    ...config.commands.filter((command) => !command.hidden).map((command) => command.id),
    ...config.topics.filter((topic) => !topic.hidden).map((topic) => topic.name),
  ].map((name) => name.split(':'));
  let depth = 0;
  while (depth < words.length - 1 && config.findTopic(words.slice(0, depth + 1).join(':'))) depth++;
  const prefix = words.slice(0, depth).join(':');
  const siblings = names.filter((name) => name.length === depth + 1 && name.slice(0, depth).join(':') === prefix);
  return { typed: words.slice(0, depth + 1), siblings };
}

export default commandNotFound;
