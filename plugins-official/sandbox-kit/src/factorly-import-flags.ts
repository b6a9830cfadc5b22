import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, isAbsolute } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The Node flags an engine's child needs to import `factorly/sandbox-kit/child`: none when the
 * child script lies inside the factorly this kit belongs to (the official engines, which import the
 * kit by its own name), none when this kit is a copy of its own that a plugin bundles (no factorly
 * around it), else `--import` of the resolve hook, pointed at factorly's package.json.
 */
export function factorlyImportFlags(script: string): string[] {
  const packageJson = owningFactorly();
  if (packageJson === undefined) return [];
  const inside = relative(dirname(packageJson), script);
  if (!inside.startsWith('..') && !isAbsolute(inside)) return [];
  const hook = new URL('./factorly-imports.js', import.meta.url);
  hook.searchParams.set('package', pathToFileURL(packageJson).href);
  return [`--import=${hook.href}`];
}

let owner: string | null | undefined;

/** The package.json of the factorly package this kit is installed in (its node_modules, or its checkout). */
function owningFactorly(): string | undefined {
  if (owner !== undefined) return owner ?? undefined;
  owner = null;
  for (let dir = dirname(fileURLToPath(import.meta.url)); dirname(dir) !== dir; dir = dirname(dir)) {
    const candidate = join(dir, 'package.json');
    if (!existsSync(candidate)) continue;
    const { name, bin } = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; bin?: unknown };
    if (name === 'factorly' && bin !== undefined) {
      owner = candidate;
      break;
    }
  }
  return owner ?? undefined;
}
