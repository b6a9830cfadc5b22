import { createHash } from 'node:crypto';
import type { ShadowOverlay } from '../contracts/shadow-policy.js';
import type { ToolDefinition } from '../contracts/tool.js';
import { configFiles } from './files.js';
import { parseLogSettings, type LogSettings } from './log-settings.js';
import type { ProjectPaths } from './paths.js';
import { buildTools, type ProviderLookup, type ToolCheck } from './tool-schema.js';
import { readConfigSource, type ConfigSource } from './yaml-source.js';

export interface LoadedConfig {
  paths: ProjectPaths;
  /** Files read, as shown in messages. */
  files: string[];
  settings: Record<string, unknown>;
  tools: ToolDefinition[];
  /** Shadow blocks for built-in tools, laid over their defaults once the built-ins are known. */
  overlays: ShadowOverlay[];
  /** sha256 over every file's name and content: changes whenever the config does. */
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

/**
 * Reads and validates every config file of a project against the installed providers and other
 * load-time checks (output processors checking `filter`).
 */
export function loadConfig(
  paths: ProjectPaths,
  providers: ProviderLookup,
  checks: readonly ToolCheck[] = [],
  inline?: InlineConfig,
  texts: ConfigTexts = new Map(),
): LoadedConfig {
  const sources = inline ? [readConfigSource(inline.name, paths.baseDir, true, inline.yaml)] : projectSources(paths, texts);
  const digest = createHash('sha256');
  for (const source of sources) digest.update(`${source.shown}\0${source.text}\0`);
  const overlays: ShadowOverlay[] = [];
  const tools = buildTools(sources, providers, checks, overlays);
  const logSource = sources.find((source) => Object.hasOwn(source.settings, 'log'));
  return {
    paths,
    files: sources.map((source) => source.shown),
    settings: Object.assign({}, ...sources.map((source) => source.settings)),
    tools,
    overlays,
    sha: digest.digest('hex'),
    log: parseLogSettings(logSource?.settings.log, logSource?.shown ?? 'config', paths.baseDir, logLines(logSource)),
  };
}

/** Lines of the `log:` block's keys, `log` for the block itself. */
function logLines(source: ConfigSource | undefined): Record<string, number> {
  const { '': block, ...keys } = source?.settingLines?.log ?? {};
  return block === undefined ? keys : { log: block, ...keys };
}

function projectSources(paths: ProjectPaths, texts: ConfigTexts): ConfigSource[] {
  const sources: ConfigSource[] = [];
  const main = readMain(paths, texts);
  if (main) sources.push(main);
  const toolsDir = typeof main?.settings.tools_dir === 'string' ? main.settings.tools_dir : undefined;
  for (const file of configFiles(paths, toolsDir)) {
    if (file !== paths.mainFile) sources.push(readConfigSource(file, paths.baseDir, false, texts.get(file)));
  }
  return sources;
}

function readMain(paths: ProjectPaths, texts: ConfigTexts): ConfigSource | undefined {
  try {
    return readConfigSource(paths.mainFile, paths.baseDir, true, texts.get(paths.mainFile));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
