/**
 * Tool names end up in file names (`tools promote` writes `<name>.yaml`), in terminal output and
 * in the names agents see, so they must be plain: not empty, no path separator or `..`, and no
 * control or bidirectional-formatting character. Why a name is refused, or undefined when it is fine.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

export function toolNameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'is empty';
  if (/[/\\]/.test(name)) return 'holds a path separator ("/" or "\\")';
  if (name.includes('..')) return 'holds ".."';
  if (CONTROL.test(name)) return 'holds a control character';
  return undefined;
}
