import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLaunchCache } from './launch-cache.js';

/**
 * What `bin/run.js` runs before oclif: the commands that need nothing of oclif start here, and
 * cost a Node start and what they do. `--version` prints what oclif would print; `call` (without
 * `--help`) runs from the plugin list oclif recorded at its last start (`launch-cache.ts`). Anything
 * else, or a `call` with no valid record yet, returns false and oclif runs as usual.
 */
export async function launch(argv: readonly string[], root: string): Promise<boolean> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    const { name, version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
    };
    process.stdout.write(`${name}/${version} ${process.platform}-${process.arch} node-${process.version}\n`);
    return true;
  }
  if (argv[0] !== 'call' || argv.includes('--help') || argv.includes('-h')) return false;
  const sources = readLaunchCache(root);
  if (!sources) return false;
  const { runCall } = await import('./call-run.js');
  process.exitCode = await runCall(argv.slice(1), sources);
  return true;
}
