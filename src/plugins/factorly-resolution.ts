import { existsSync, readFileSync } from 'node:fs';
import { register } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FactorlyError } from '../base/errors.js';
import type { ResolveHookData } from './factorly-resolve-hooks.js';

let registered = false;

/**
 * Makes `factorly` and `factorly/<entry>` resolve, in every module imported from now on, to the
 * running factorly (its package's exports), never to a `factorly` package some node_modules above
 * the importer holds. Called before the first installed or linked plugin is imported: those live
 * outside factorly's package (`plugins install` puts them in the data dir), where Node alone would
 * find no `factorly` or the wrong one. Registering costs a hooks thread (about 30 ms), so a start
 * with only the plugins factorly ships never pays it. Idempotent.
 */
export function resolveFactorlyForPlugins(): void {
  if (registered) return;
  registered = true;
  const data: ResolveHookData = { packageJson: pathToFileURL(factorlyPackageJson()).href };
  register('./factorly-resolve-hooks.js', { parentURL: import.meta.url, data });
}

/** The package.json of the factorly this module belongs to (built: dist/src/plugins; tests: src/plugins). */
function factorlyPackageJson(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate) && (JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string }).name === 'factorly')
      return candidate;
    if (dirname(dir) === dir)
      throw new FactorlyError('PLUGIN_DEPENDENCY', `no factorly package.json above ${fileURLToPath(import.meta.url)}`);
  }
}
