import { readdirSync, readFileSync } from 'node:fs';

/** Live child processes of `parent` (from /proc), with their command lines. */
export function childProcesses(parent = process.pid): { pid: number; args: string }[] {
  const children: { pid: number; args: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== parent || fields[0] === 'Z') continue;
      children.push({
        pid: Number(entry),
        args: readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim(),
      });
    } catch {
      // the process ended while we looked
    }
  }
  return children;
}
