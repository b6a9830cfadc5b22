import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { CacheKind } from '../base/cache-file.js';
import type { PluginSource } from '../plugins/manifest.js';

/**
 * What oclif found the last time it started factorly: the plugin packages (core, installed, linked)
 * with their manifests, and the files and environment that list depends on. A command that needs
 * nothing else from oclif (`factorly call`) starts from it without loading oclif at all, as long as
 * none of those files changed (by mtime and size) and the environment is the same; otherwise oclif
 * runs as usual and writes it again.
 */
export interface LaunchCache {
  /** Bumped when the shape changes. */
  schema: 2;
  /** The factorly installation that wrote it: two installs under one home must not share a list. */
  root: string;
  env: Record<string, string | null>;
  /** path → `<mtimeMs>:<size>`, or `missing`. */
  files: Record<string, string>;
  sources: PluginSource[];
}

/** Environment variables that change where oclif looks for plugins. */
const ENV_KEYS = [
  'HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'XDG_CONFIG_HOME',
  'FACTORLY_DATA_DIR',
  'FACTORLY_CACHE_DIR',
  'FACTORLY_CONFIG_DIR',
  'LOCALAPPDATA',
];
/** One file per installation (its root), the lists of eight kept side by side (a global install, a checkout, …). */
const LAUNCH = new CacheKind('launch', 8);

/** oclif's cache directory for factorly, computed as oclif computes it (without loading it). */
export function launchCacheDir(): string {
  const explicit = process.env.FACTORLY_CACHE_DIR;
  if (explicit) return explicit;
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'factorly');
  if (process.platform === 'win32')
    return join(process.env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'factorly');
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'factorly');
}

/** The plugin list, when the cache is there and still describes this installation (`root`). */
export function readLaunchCache(root: string): PluginSource[] | undefined {
  const text = LAUNCH.read(launchCacheDir(), resolve(root));
  if (text === undefined) return undefined;
  let cache: LaunchCache;
  try {
    cache = JSON.parse(text) as LaunchCache;
  } catch {
    return undefined;
  }
  if (cache.schema !== 2 || cache.root !== resolve(root) || !Array.isArray(cache.sources)) return undefined;
  for (const key of ENV_KEYS) if ((process.env[key] ?? null) !== (cache.env?.[key] ?? null)) return undefined;
  for (const [path, stamp] of Object.entries(cache.files ?? {})) if (fileStamp(path) !== stamp) return undefined;
  return cache.sources;
}

/**
 * Records the plugin list oclif found, with what it depends on: the root package's manifest, the
 * data dir's (installed and linked plugins), and every plugin's own. Written atomically; a failure
 * to write (a read-only home) only means the next start goes through oclif again.
 */
export function writeLaunchCache(sources: PluginSource[], cacheDir: string, dataDir: string, root: string): void {
  if (cacheDir !== launchCacheDir()) return;
  const files = [
    join(root, 'package.json'),
    join(dataDir, 'package.json'),
    ...sources.map((source) => join(source.root, 'package.json')),
  ];
  const cache: LaunchCache = {
    schema: 2,
    root: resolve(root),
    env: Object.fromEntries(ENV_KEYS.map((key) => [key, process.env[key] ?? null])),
    files: Object.fromEntries(files.map((path) => [path, fileStamp(path)])),
    sources,
  };
  LAUNCH.write(cacheDir, resolve(root), JSON.stringify(cache));
}

function fileStamp(path: string): string {
  try {
    const stat = statSync(path);
    return `${stat.mtimeMs}:${stat.size}`;
  } catch {
    return 'missing';
  }
}
