import { createHash } from 'node:crypto';
import { relative } from 'node:path';
import { FactorlyError } from '../base/errors.js';
import type { ToolDefinition, ToolOverlay } from './tool-definition.js';
import { ConfigDeclarations } from './declared.js';
import { configFiles } from './files.js';
import { includedFiles } from './included-files.js';
import { shownPath } from './json-schema.js';
import { parseLogSettings, type LogSettings } from './log-settings.js';
import type { ProjectPaths } from './paths.js';
import { buildTools, type ProviderLookup } from './tool-schema.js';
import { nodeAtPath } from './yaml-path.js';
import { readConfigSource, type ConfigSource } from './yaml-source.js';

export interface LoadedConfig {
  paths: ProjectPaths;
  /** Files read, as shown in messages. */
  files: string[];
  /** Top-level keys other than `tools`, later files winning per key; plugins' blocks checked against their schemas. */
  settings: Record<string, unknown>;
  tools: ToolDefinition[];
  /** Entries that adjust built-in tools, laid over them once the built-ins are known. */
  overlays: ToolOverlay[];
  /** Files entries name for a key (`code_file`), absolute, read with the config and followed like its files. */
  included: string[];
  /** sha256 over every file's name and content, included files too: changes whenever the config does. */
  sha: string;
  /** The `log:` block: durability, how much of each param and output the log keeps, checkpoints. */
  log: LogSettings;
}

/** A config given as text instead of the project's files (`wrap` describes its one server this way). */
export interface InlineConfig {
  /** Shown in messages where a file name would be. */
  name: string;
  yaml: string;
}

/** File path → the text to read instead of the file's (checking an edit before it is written). */
export type ConfigTexts = ReadonlyMap<string, string>;

/** The config's files parsed, and their top-level settings checked: what plugins are handed before they initialise. */
export interface ConfigSettings {
  sources: ConfigSource[];
  settings: Record<string, unknown>;
}

/**
 * Reads every config file of a project and checks its top-level settings: the kernel's own keys,
 * and every other key against the plugins that declared it (`declared`). Throws one
 * `CONFIG_INVALID` error listing every problem with its file and line.
 */
export function readSettings(
  paths: ProjectPaths,
  declared: ConfigDeclarations,
  inline?: InlineConfig,
  texts: ConfigTexts = new Map(),
): ConfigSettings {
  const known = declared.known('settings');
  const sources = inline
    ? [readConfigSource(inline.name, paths.baseDir, true, known, inline.yaml)]
    : projectSources(paths, known, texts);
  const problems: string[] = [];
  for (const source of sources) {
    for (const [key, value] of Object.entries(source.settings)) {
      const owners = declared.owners('settings', key);
      if (!owners) continue;
      const node = source.settingNodes[key] ?? null;
      declared.check(owners, value, (found) => {
        const shown = shownPath(key, found.path);
        const at = `${source.shown}:${source.lineOf(nodeAtPath(node, found.path))}`;
        problems.push(
          found.unknownKey
            ? `config: unknown key "${shown}"${found.message} (${at})`
            : `config: invalid ${shown}: ${found.message} (${at})`,
        );
      });
    }
  }
  const settings = mergeSettings(sources, declared, problems);
  if (problems.length > 0) throw new FactorlyError('CONFIG_INVALID', problems.join('\n'), { data: { problems } });
  return { sources, settings };
}

/**
 * The files' settings as one: a later file's value of a key wins, except for blocks of named entries
 * (`oauth_providers`: `PluginConfig.merge`), whose entries join, a name given twice being a problem.
 */
function mergeSettings(sources: readonly ConfigSource[], declared: ConfigDeclarations, problems: string[]) {
  const settings: Record<string, unknown> = {};
  const firstAt = new Map<string, string>();
  for (const source of sources) {
    for (const [key, value] of Object.entries(source.settings)) {
      const earlier = settings[key];
      if (!declared.mergesByName(key) || !isEntries(value) || !isEntries(earlier)) {
        settings[key] = value;
        if (isEntries(value))
          for (const name of Object.keys(value)) firstAt.set(`${key}\0${name}`, lineOf(source, key, name));
        continue;
      }
      const merged = { ...earlier };
      for (const [name, entry] of Object.entries(value)) {
        const at = lineOf(source, key, name);
        const first = firstAt.get(`${key}\0${name}`);
        if (first !== undefined)
          problems.push(`config: duplicate ${key} entry "${name}" (found again in ${at}; first in ${first})`);
        else {
          merged[name] = entry;
          firstAt.set(`${key}\0${name}`, at);
        }
      }
      settings[key] = merged;
    }
  }
  return settings;
}

function isEntries(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function lineOf(source: ConfigSource, key: string, name: string): string {
  const lines = source.settingLines?.[key];
  return `${source.shown}:${lines?.[name] ?? lines?.[''] ?? 1}`;
}

/**
 * The tools of a config whose settings were read (`readSettings`), validated against the installed
 * providers and the keys plugins declared.
 */
export function buildConfig(
  paths: ProjectPaths,
  read: ConfigSettings,
  providers: ProviderLookup,
  declared: ConfigDeclarations,
): LoadedConfig {
  const { sources, settings } = read;
  const digest = createHash('sha256');
  for (const source of sources) digest.update(`${source.shown}\0${source.text}\0`);
  const overlays: ToolOverlay[] = [];
  const included = includedFiles(paths.baseDir);
  const tools = buildTools(sources, providers, declared, overlays, included);
  included.paths.forEach((path, i) => digest.update(`${relative(paths.baseDir, path)}\0${included.texts[i]}\0`));
  const logSource = sources.find((source) => Object.hasOwn(source.settings, 'log'));
  return {
    paths,
    files: sources.map((source) => source.shown),
    settings,
    tools,
    overlays,
    included: included.paths,
    sha: digest.digest('hex'),
    log: parseLogSettings(logSource?.settings.log, logSource?.shown ?? 'config', paths.baseDir, logLines(logSource)),
  };
}

/** `readSettings` then `buildConfig`: the whole config from its files. */
export function loadConfig(
  paths: ProjectPaths,
  providers: ProviderLookup,
  declared = new ConfigDeclarations(),
  inline?: InlineConfig,
  texts: ConfigTexts = new Map(),
): LoadedConfig {
  return buildConfig(paths, readSettings(paths, declared, inline, texts), providers, declared);
}

/** Lines of the `log:` block's keys, `log` for the block itself. */
function logLines(source: ConfigSource | undefined): Record<string, number> {
  const { '': block, ...keys } = source?.settingLines?.log ?? {};
  return block === undefined ? keys : { log: block, ...keys };
}

function projectSources(paths: ProjectPaths, known: readonly string[], texts: ConfigTexts): ConfigSource[] {
  const sources: ConfigSource[] = [];
  const main = readMain(paths, known, texts);
  if (main) sources.push(main);
  const toolsDir = typeof main?.settings.tools_dir === 'string' ? main.settings.tools_dir : undefined;
  // A text for a file not written yet (an install being checked) joins the config as if it were there.
  for (const file of configFiles(paths, toolsDir, [...texts.keys()])) {
    if (file !== paths.mainFile) sources.push(readConfigSource(file, paths.baseDir, false, known, texts.get(file)));
  }
  return sources;
}

function readMain(paths: ProjectPaths, known: readonly string[], texts: ConfigTexts): ConfigSource | undefined {
  try {
    return readConfigSource(paths.mainFile, paths.baseDir, true, known, texts.get(paths.mainFile));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
