import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ProjectPaths } from './paths.js';

const YAML = /\.ya?ml$/;
const MAIN_NAMES = new Set(['factorly.yaml', 'factorly.yml']);

/** The folder installed blueprints live in (`factorly blueprint install` writes `<name>.yaml` there). */
export function blueprintsDir(paths: ProjectPaths): string {
  return join(paths.stateDir, 'blueprints');
}

/**
 * The files that make up a config, in load order: the main file, its `tools_dir`, loose YAML in
 * `.factorly/`, `.factorly/tools/` and `.factorly/blueprints/` (and `.factorly/factorly.yaml` when
 * the main file sits outside). Each folder is read in sorted name order so that load order never
 * depends on the file system. `pending` names files not written yet (an install being checked):
 * each joins its folder as if it were there.
 */
export function configFiles(
  paths: ProjectPaths,
  toolsDir: string | undefined,
  pending: readonly string[] = [],
): string[] {
  const files: string[] = [];
  const add = (file: string): void => {
    if (!files.includes(file)) files.push(file);
  };
  const inFolder = (dir: string): string[] => yamlIn(dir, pending);
  if (existsSync(paths.mainFile)) add(paths.mainFile);
  if (toolsDir) for (const file of inFolder(resolve(dirname(paths.mainFile), toolsDir))) add(file);
  if (!paths.global) {
    const inner = join(paths.stateDir, 'factorly.yaml');
    if (dirname(paths.mainFile) !== paths.stateDir && existsSync(inner)) add(inner);
    for (const file of inFolder(paths.stateDir).filter((f) => !MAIN_NAMES.has(basename(f)))) add(file);
    for (const file of inFolder(join(paths.stateDir, 'tools'))) add(file);
  }
  for (const file of inFolder(blueprintsDir(paths))) add(file);
  return files;
}

function yamlIn(dir: string, pending: readonly string[]): string[] {
  const planned = pending.filter((file) => dirname(file) === dir && YAML.test(file));
  const found = existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isFile() && YAML.test(entry.name))
        .map((entry) => join(dir, entry.name))
    : [];
  return [...new Set([...found, ...planned])].sort();
}
