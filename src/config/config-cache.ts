import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { CacheKind } from '../base/cache-file.js';
import { configFiles } from './files.js';
import type { LoadedConfig } from './load.js';
import type { ProjectPaths } from './paths.js';

interface Entry {
  schema: 2;
  /** The plugins (and their code) that validated it. */
  key: string;
  toolsDir?: string;
  /** Every file read, in load order, with the sha256 of its text: config files, then the files entries named (`code_file`). */
  files: [string, string][];
  config: Omit<LoadedConfig, 'paths'>;
}

/** What the cache keys on of each plugin package (a discovered `PluginSource` is one). */
export interface PluginStamp {
  name: string;
  version: string;
  root: string;
  manifest?: unknown;
}

/**
 * The normalised config of a project, kept between processes so that a command that only calls a
 * tool does not parse YAML and validate every tool again. An entry is used only when the same files
 * (the same list, by sha256 of their text) are there and the same plugins, with the same code,
 * validated it; anything else loads the config from its files, as without a cache.
 */
export class ConfigCache {
  /** The plugins and their code: what else (the boot plan) is valid for exactly these. */
  readonly key: string;

  constructor(
    private readonly dir: string,
    sources: readonly PluginStamp[],
  ) {
    this.key = keyOf(sources);
  }

  read(paths: ProjectPaths): LoadedConfig | undefined {
    const bytes = CONFIGS.readBytes(join(this.dir, 'config'), keyOfProject(paths));
    if (bytes === undefined) return undefined;
    let entry: Entry;
    try {
      entry = deserialize(bytes) as Entry;
    } catch {
      return undefined;
    }
    if (entry?.schema !== 2 || entry.key !== this.key) return undefined;
    const files = [...configFiles(paths, entry.toolsDir), ...entry.config.included];
    if (files.length !== entry.files.length) return undefined;
    for (const [i, file] of files.entries()) {
      const [cached, digest] = entry.files[i];
      if (file !== cached || digestOf(file) !== digest) return undefined;
    }
    return { ...entry.config, paths };
  }

  /** Records a config just loaded from its files; a config that cannot be cloned, or a cache that cannot be written, is simply not kept. */
  write(paths: ProjectPaths, config: LoadedConfig): void {
    const toolsDir = typeof config.settings.tools_dir === 'string' ? config.settings.tools_dir : undefined;
    const { paths: _paths, ...rest } = config;
    try {
      const read = [...configFiles(paths, toolsDir), ...config.included];
      const files = read.map((file): [string, string] => [file, digestOf(file)]);
      const bytes = serialize({ schema: 2, key: this.key, toolsDir, files, config: rest } satisfies Entry);
      CONFIGS.write(join(this.dir, 'config'), keyOfProject(paths), bytes);
    } catch {
      // Only a cache.
    }
  }
}

/**
 * One entry per project, those of the 64 projects used last kept (a machine that runs factorly in
 * many short-lived directories must not collect an entry for each). Version 1 named them by a
 * 32-digit digest alone.
 */
const CONFIGS = new CacheKind('config', 64, { ext: 'v8', legacy: /^[0-9a-f]{32}\.v8$/ });

function keyOfProject(paths: ProjectPaths): string {
  return `${paths.mainFile}\0${paths.stateDir}`;
}

function digestOf(file: string): string {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return 'missing';
  }
}

/**
 * The plugins by name, version and root, and the code they validate with: the modification time and
 * size of each plugin's entry module and of its build record (`dist/.tsbuildinfo`, rewritten by every
 * build that changes the plugin, so a rebuild under the same version counts), and of every file of
 * factorly's own config validation.
 */
function keyOf(sources: readonly PluginStamp[]): string {
  const digest = createHash('sha256').update('factorly-config-cache:1');
  for (const source of sources) {
    digest.update(`\0${source.name}@${source.version}:${source.root}:${JSON.stringify(source.manifest ?? null)}`);
    const plugin = (source.manifest as { plugin?: unknown } | undefined)?.plugin;
    if (typeof plugin === 'string')
      digest.update(`${stampOf(join(source.root, plugin))}|${stampOf(join(source.root, 'dist', '.tsbuildinfo'))}`);
  }
  digest.update(codeStamp(import.meta.dirname));
  return digest.digest('hex');
}

function stampOf(file: string): string {
  try {
    const stat = statSync(file);
    return `${stat.mtimeMs}:${stat.size}`;
  } catch {
    return 'missing';
  }
}

function codeStamp(dir: string): string {
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith('.js'))
      .sort()
      .map((name) => `${name}:${stampOf(join(dir, name))}`)
      .join(',');
  } catch {
    return 'unreadable';
  }
}
