import { writeWarning } from '../base/printable.js';
import type { ToolDefinition } from './tool-definition.js';

/**
 * Tool names end up in file names (`tools promote` writes `<name>.yaml`), in terminal output and
 * in the names agents see, so they must be plain: not empty, no path separator or `..`, no control
 * character, and no format character (Unicode category Cf: zero-width spaces and joiners, the soft
 * hyphen, bidi marks and overrides, the BOM, tags), which is invisible: two names that look alike
 * could differ by one, and a rule written for one would not cover the other. Why a name is refused,
 * or undefined when it is fine.
 */
const CONTROL = /[\p{Cc}\u2028\u2029]/u;
const FORMAT = /\p{Cf}/u;

export function toolNameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'is empty';
  if (/[/\\]/.test(name)) return 'holds a path separator ("/" or "\\")';
  if (name.includes('..')) return 'holds ".."';
  if (CONTROL.test(name)) return 'holds a control character';
  const format = FORMAT.exec(name)?.[0];
  if (format !== undefined)
    return `holds an invisible format character (U+${format.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`;
  return undefined;
}

/** The tools an entry now stands for that have names factorly serves; each other one is named on stderr. */
export function wellNamed(tools: readonly ToolDefinition[]): ToolDefinition[] {
  return tools.filter((tool) => {
    const badName = toolNameProblem(tool.name);
    if (badName) writeWarning(leftOut(tool, badName));
    return badName === undefined;
  });
}

/** The warning for a provider-made tool left out for its name. */
export function leftOut(tool: ToolDefinition, problem: string): string {
  return `tool source "${tool.expandedFrom}" lists a tool named ${JSON.stringify(tool.name)}, which ${problem}; it is left out`;
}
