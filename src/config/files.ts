import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ProjectPaths } from './paths.js';

const YAML = /\.ya?ml$/;
const MAIN_NAMES = new Set(['factorly.yaml', 'factorly.yml']);

/**
 * The files that make up a config, in load order: the main file, its `tools_dir`, loose YAML in
 * `.factorly/` and `.factorly/tools/` (and `.factorly/factorly.yaml` when the main file sits outside).
 * Each folder is read in sorted name order so that load order never depends on the file system.
 */
export function configFiles(paths: ProjectPaths, toolsDir: string | undefined): string[] {
  const files: string[] = [];
  const add = (file: string): void => {
    if (!files.includes(file)) files.push(file);
  };
  if (existsSync(paths.mainFile)) add(paths.mainFile);
  if (toolsDir) for (const file of yamlIn(resolve(dirname(paths.mainFile), toolsDir))) add(file);
  if (paths.global) return files;
  const inner = join(paths.stateDir, 'factorly.yaml');
  if (dirname(paths.mainFile) !== paths.stateDir && existsSync(inner)) add(inner);
  for (const file of yamlIn(paths.stateDir).filter((f) => !MAIN_NAMES.has(basename(f)))) add(file);
  for (const file of yamlIn(join(paths.stateDir, 'tools'))) add(file);
  return files;
}

function yamlIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && YAML.test(entry.name))
    .map((entry) => join(dir, entry.name))
    .sort();
}
