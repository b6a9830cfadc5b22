import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { FactorlyError } from '../base/errors.js';

/** Where a project's config and runtime state live. */
export interface ProjectPaths {
  /** The main config file (may not exist when only `.factorly/` does). */
  mainFile: string;
  /** Directory holding runtime state: `.factorly/` of the project, or the global config dir. */
  stateDir: string;
  /** The directory paths in messages are shown relative to. */
  baseDir: string;
  /** The event log file. */
  logPath: string;
  global: boolean;
  /** The user-wide config dir (`~/.config/factorly`): the global config and secrets live there. */
  globalDir: string;
}

export interface FindConfigOptions {
  cwd: string;
  /** `-c/--config`: a file to use instead of discovery. */
  explicit?: string;
  /** Overrides the global config dir (defaults to `$XDG_CONFIG_HOME/factorly` or `~/.config/factorly`). */
  globalDir?: string;
}

export function globalConfigDir(): string {
  const base = process.env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'factorly');
}

/**
 * Finds the config the way users expect from the reference: `-c`, then `./factorly.yaml`,
 * `./factorly.yml`, `./.factorly/factorly.yaml`, a bare `./.factorly/` dir, then the global config.
 */
export function findConfig(options: FindConfigOptions): ProjectPaths {
  const cwd = resolve(options.cwd);
  const globalDir = options.globalDir ?? globalConfigDir();
  if (options.explicit) return explicitConfig(resolve(cwd, options.explicit), cwd, globalDir);
  for (const name of ['factorly.yaml', 'factorly.yml']) {
    const file = join(cwd, name);
    if (existsSync(file)) return project(file, join(cwd, '.factorly'), cwd, globalDir);
  }
  const stateDir = join(cwd, '.factorly');
  if (isDirectory(stateDir)) return project(join(stateDir, 'factorly.yaml'), stateDir, cwd, globalDir);
  const globalFile = join(globalDir, 'factorly.yaml');
  if (existsSync(globalFile)) return { ...project(globalFile, globalDir, globalDir, globalDir), global: true };
  throw new FactorlyError(
    'CONFIG_NOT_FOUND',
    `config file not found: ${join('.factorly', 'factorly.yaml')} (run 'factorly init' to create one)`,
  );
}

function explicitConfig(file: string, cwd: string, globalDir: string): ProjectPaths {
  if (!existsSync(file)) {
    throw new FactorlyError('CONFIG_NOT_FOUND', `config file not found: ${relative(cwd, file) || file}`);
  }
  const dir = dirname(file);
  const stateDir = basename(dir) === '.factorly' ? dir : join(dir, '.factorly');
  return project(file, stateDir, dirname(stateDir), globalDir);
}

function project(mainFile: string, stateDir: string, baseDir: string, globalDir: string): ProjectPaths {
  return { mainFile, stateDir, baseDir, logPath: join(stateDir, 'events.lmdb'), global: false, globalDir };
}

function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}
