/** The reference's dangerous shell patterns (matched case-insensitively as substrings). */
export const DANGEROUS_COMMANDS = [
  'rm -rf /',
  'rm -rf ~',
  'rm -rf .',
  'rm -rf *',
  'mkfs',
  'dd if=',
  '> /dev/sd',
  '> /dev/nvme',
  'chmod -R 777 /',
  'chmod 777 /',
  'curl | sh',
  'curl | bash',
  'wget | sh',
  'wget | bash',
  'curl|sh',
  'curl|bash',
  ':(){ :|:& };:',
  'DROP TABLE',
  'DROP DATABASE',
  'TRUNCATE TABLE',
  'shutdown',
  'reboot',
  'init 0',
  'init 6',
  'systemctl poweroff',
  'systemctl reboot',
];

/**
 * Why a command is refused, or undefined. Unlike the reference (where any allow entry found
 * anywhere in the command lifts every pattern), an allow entry only lifts the dangerous match it
 * covers: each occurrence of a dangerous pattern must lie inside an occurrence of some allow entry.
 * So `allow_patterns: ["rm -rf ./build"]` permits `rm -rf ./build` but not `rm -rf ./build; rm -rf /`.
 */
export function shellProblem(command: string, allowPatterns: readonly string[]): string | undefined {
  const text = command.toLowerCase();
  const allowed = allowPatterns.flatMap((entry) => spans(text, entry.toLowerCase()));
  for (const pattern of DANGEROUS_COMMANDS) {
    for (const [start, end] of spans(text, pattern.toLowerCase())) {
      if (!allowed.some(([from, to]) => from <= start && end <= to))
        return `command blocked by safety guard: matches denied pattern ${JSON.stringify(pattern)}`;
    }
  }
  return undefined;
}

function spans(text: string, needle: string): [number, number][] {
  const found: [number, number][] = [];
  if (needle === '') return found;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1))
    found.push([at, at + needle.length]);
  return found;
}
