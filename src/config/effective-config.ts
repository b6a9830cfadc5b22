import type { JsonValue } from '../events/catalog.js';
import { withSecretReferences } from '@factorly/text-kit';
import { canonicalJson, sha256Hex } from '../events/hash.js';
import type { LoadedConfig } from './load.js';
import type { ToolDefinition } from './tool-definition.js';

/** The rules in force, as recorded in `config.recorded` and read back by `logs replay --check`. */
export interface EffectiveConfig {
  settings: Record<string, JsonValue>;
  /** Every tool as the shadow rules see it, by name (an upstream tool's input schema left out). */
  tools: Record<string, ToolDefinition>;
  plugins: string[];
}

/** The plugins a process loaded, as the record names them (the plugin host's report is one). */
export interface LoadedPluginIds {
  loaded: readonly { id: string; version: string }[];
}

/**
 * The effective configuration of a process, normalised (canonical JSON, tools by name) so equal
 * configurations get one digest. A secret a provider resolved at boot is put back as its reference
 * wherever its value shows up, so the record never holds one.
 */
export function effectiveConfig(
  config: LoadedConfig,
  tools: readonly ToolDefinition[],
  plugins: LoadedPluginIds,
  secrets: ReadonlyMap<string, string>,
): { sha: string; config: JsonValue } {
  const effective: EffectiveConfig = {
    settings: config.settings as Record<string, JsonValue>,
    tools: Object.fromEntries(tools.map(({ inputSchema: _schema, ...tool }) => [tool.name, tool as ToolDefinition])),
    plugins: plugins.loaded.map((plugin) => `${plugin.id}@${plugin.version}`).sort(),
  };
  const text = withSecretReferences(canonicalJson(effective), secrets);
  return { sha: sha256Hex(text), config: JSON.parse(text) as JsonValue };
}

/** The top-level settings of a recorded configuration (the plugins' blocks among them), for the rules to decide with again. */
export function recordedSettings(config: JsonValue | undefined): Record<string, unknown> | undefined {
  const settings = (config as { settings?: unknown } | undefined)?.settings;
  return settings !== null && typeof settings === 'object' ? (settings as Record<string, unknown>) : undefined;
}

/** The tools of a recorded configuration, for the rules to decide with again. */
export function recordedTools(config: JsonValue | undefined): Map<string, ToolDefinition> | undefined {
  const tools = (config as { tools?: Record<string, ToolDefinition> } | undefined)?.tools;
  return tools ? new Map(Object.entries(tools)) : undefined;
}
