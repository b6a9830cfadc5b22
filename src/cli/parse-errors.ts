import { didYouMean } from '../base/suggest.js';
import { FactorlyError } from '../base/errors.js';

/** What a parse error is checked against: the command's own flags and args, as oclif defines them. */
export interface CommandShape {
  id: string;
  flags: Record<string, { hidden?: boolean }>;
  args: Record<string, { description?: string }>;
}

interface OclifParseError {
  message: string;
  args?: ({ name: string; description?: string } | string)[];
  flags?: string[];
}

/** How oclif words each mistake (see @oclif/core parser/errors.ts), and the reading of each for a person. */
const READINGS: [RegExp, (match: RegExpMatchArray, error: OclifParseError, shape: CommandShape) => string][] = [
  // A flag's own parser refused the value (an integer flag given "x", a number out of range).
  [/^Parsing --(\S+)\s*\n\t?Expected (.+?) but received: ([^\n]*)/, (m) => `--${m[1]} expects ${m[2]}, got "${m[3]}"`],
  [/^Parsing --(\S+)\s*\n\t?([^\n]*)/, (m) => `--${m[1]}: ${m[2]}`],
  [
    /^Expected --([^=\s]+)=([\s\S]*) to be one of: ([^\n]*)/,
    (m) => `--${m[1]} expects one of ${m[3]}, got "${m[2]}"${didYouMean(m[2], m[3].split(', '))}`,
  ],
  [/^Expected ([\s\S]*) to be one of: ([^\n]*)/, (m) => `an argument expects one of ${m[2]}, got "${m[1]}"`],
  [/^Missing \d+ required args?/, (_m, error) => missingArgs(error)],
  [/^Unexpected arguments?:/, (_m, error, shape) => unexpectedArgs(error, shape)],
  [/^Nonexistent flags?:/, (_m, error, shape) => unknownFlags(error, shape)],
];

/**
 * oclif's parse errors say what went wrong in a form made for its own output (`Parsing --tail`, the
 * missing arg's name on a second line that a one-line report drops): this rewrites them as one line
 * naming the flag or argument, the value given and what was expected, as a USAGE error (exit 2).
 * Anything that is not a parse error is returned as undefined.
 */
export function readParseError(error: unknown, shape: CommandShape): FactorlyError | undefined {
  if (!isParseError(error)) return undefined;
  for (const [pattern, read] of READINGS) {
    const match = pattern.exec(error.message);
    if (match) return new FactorlyError('USAGE', read(match, error, shape), { cause: error });
  }
  return new FactorlyError('USAGE', remainingLines(error.message), { cause: error });
}

function isParseError(error: unknown): error is OclifParseError {
  if (!(error instanceof Error)) return false;
  // Parser errors carry the parse they came from; a flag parser's error is re-worded "Parsing --name".
  return 'parse' in error || /^Parsing --/.test(error.message);
}

function missingArgs(error: OclifParseError): string {
  const missing = (error.args ?? []).flatMap((arg) => (typeof arg === 'string' ? [] : [arg]));
  const described = (arg: { name: string; description?: string }): string =>
    arg.description ? ` (${arg.description})` : '';
  if (missing.length === 1) return `missing the ${argName(missing[0].name)} argument${described(missing[0])}`;
  return `missing the arguments ${missing.map((arg) => `${argName(arg.name)}${described(arg)}`).join(', ')}`;
}

function unexpectedArgs(error: OclifParseError, shape: CommandShape): string {
  const extra = (error.args ?? []).map((arg) => `"${typeof arg === 'string' ? arg : arg.name}"`);
  const takes = Object.keys(shape.args).map(argName);
  const expected = takes.length === 0 ? 'no arguments' : takes.join(' ');
  return `unexpected argument${extra.length === 1 ? '' : 's'} ${extra.join(', ')} (${commandName(shape)} takes ${expected})`;
}

function unknownFlags(error: OclifParseError, shape: CommandShape): string {
  const known = Object.entries(shape.flags)
    .filter(([, flag]) => !flag.hidden)
    .map(([name]) => `--${name}`);
  const given = (error.flags ?? []).map((flag) => flag.split('=')[0]);
  if (given.length === 1) return `unknown flag ${given[0]}${didYouMean(given[0], known)}`;
  return `unknown flags ${given.join(', ')} (${commandName(shape)} takes ${known.join(', ') || 'no flags'})`;
}

/** Any other parse error: its lines without oclif's header and footer, as one line. */
function remainingLines(message: string): string {
  return message
    .split('\n')
    .map((line) => line.trim())
    .filter(
      (line) => line !== '' && line !== 'See more help with --help' && !/^The following errors? occurred:$/.test(line),
    )
    .join('; ');
}

/** An argument as the usage line shows it (oclif writes argument names in capitals). */
function argName(name: string): string {
  return name.toUpperCase();
}

function commandName(shape: CommandShape): string {
  return shape.id.replaceAll(':', ' ');
}
