import { resolve } from 'node:path';
import ms from 'ms';
import { isMap, type Node, type YAMLMap } from 'yaml';
import { FactorlyError } from '../base/errors.js';
import { didYouMean } from '../base/suggest.js';
import type { JsonValue } from '../events/catalog.js';
import type { DefinitionPreparer, ToolDefinition, ToolOverlay } from './tool-definition.js';
import { COMMON_TOOL_KEYS, type ConfigDeclarations } from './declared.js';
import { readFileKeys, type IncludedFiles } from './included-files.js';
import { shownPath } from './json-schema.js';
import { parseParameters } from './parameter-schema.js';
import { checkShadowBlock } from './shadow-block.js';
import { toolNameProblem } from './tool-name.js';
import { nodeAtPath } from './yaml-path.js';
import type { ConfigSource, RawTool } from './yaml-source.js';

export interface ProviderLookup {
  get(type: string): DefinitionPreparer | undefined;
  keys(): string[];
}

/**
 * Tools plugins bring (built-ins) are named `factorly.<x>`: the namespace is reserved for them, and a
 * config entry with such a name and no `type` adjusts one rather than defining a tool.
 */
export const BUILTIN_PREFIX = 'factorly.';

/**
 * Turns the raw entries of every config file into tool definitions, or throws one
 * `CONFIG_INVALID` error listing every problem, each with its tool, file and line. Keys beyond the
 * common ones are the provider's (`keys`) or a plugin's (`declared`). Entries that adjust a built-in
 * tool are collected into `overlays`; files entries name for a provider's `fileKeys` into `included`.
 */
export function buildTools(
  sources: readonly ConfigSource[],
  providers: ProviderLookup,
  declared: ConfigDeclarations,
  overlays: ToolOverlay[] = [],
  included?: IncludedFiles,
): ToolDefinition[] {
  const problems: string[] = [];
  const tools = new Map<string, ToolDefinition>();
  const firstSeen = new Map<string, RawTool>();
  for (const raw of sources.flatMap((source) => source.tools)) {
    const badName = toolNameProblem(raw.name);
    if (badName) {
      problems.push(`config: tool name ${JSON.stringify(raw.name)} ${badName} (${raw.file}:${raw.line})`);
      continue;
    }
    const earlier = firstSeen.get(raw.name);
    if (earlier) {
      problems.push(
        `config: duplicate tool "${raw.name}" (found again in ${raw.file}:${raw.line}; first in ${earlier.file}:${earlier.line})`,
      );
      continue;
    }
    firstSeen.set(raw.name, raw);
    const problem: Problem = (message, node) => {
      problems.push(
        `config: tool "${raw.name}" ${message} (${raw.file}:${node === undefined ? raw.line : raw.lineOf(node)})`,
      );
    };
    if (isOverlay(raw, providers)) {
      const overlay = buildOverlay(raw, declared, problem);
      if (overlay) overlays.push(overlay);
      continue;
    }
    const tool = buildTool(raw, providers, declared, problem, included);
    if (tool) tools.set(tool.name, tool);
  }
  if (problems.length > 0) throw new FactorlyError('CONFIG_INVALID', problems.join('\n'), { data: { problems } });
  return [...tools.values()];
}

type Problem = (message: string, node?: Node | null) => void;

/** Keys an entry for a built-in tool may hold: it adjusts the built-in, it does not define a tool. */
const OVERLAY_KEYS = ['type', 'shadow', 'timeout', 'hidden', 'max_output'] as const;

/** `factorly.<x>` with no type, or with the type of a provider whose entries only adjust (the seed's `type: builtin`). */
function isOverlay(raw: RawTool, providers: ProviderLookup): boolean {
  if (!raw.name.startsWith(BUILTIN_PREFIX) || !isRecord(raw.value)) return false;
  return raw.value.type === undefined || providers.get(String(raw.value.type))?.adjustsOnly === true;
}

function buildOverlay(raw: RawTool, declared: ConfigDeclarations, problem: Problem): ToolOverlay | undefined {
  const value = raw.value as Record<string, unknown>;
  // Other keys are the built-in's provider's (`engine`): checked once the built-in is known.
  const specKeys = Object.keys(value).filter((key) => !(OVERLAY_KEYS as readonly string[]).includes(key));
  if (specKeys.length === 0 && !OVERLAY_KEYS.some((key) => key !== 'type' && value[key] !== undefined)) {
    problem('adjusts a built-in tool but sets nothing (add a "shadow" block, or another type to define a tool)');
    return undefined;
  }
  const shadow = checkShadowBlock(value.shadow, nodeAt(raw, 'shadow'), declared, problem);
  return {
    name: raw.name,
    shadow,
    timeoutMs: parseTimeout(value.timeout, (m) => problem(m, nodeAt(raw, 'timeout'))),
    maxOutput: parseMaxOutput(value.max_output, (m) => problem(m, nodeAt(raw, 'max_output'))),
    hidden: typeof value.hidden === 'boolean' ? value.hidden : undefined,
    ...(specKeys.length === 0
      ? {}
      : {
          spec: Object.fromEntries(specKeys.map((key) => [key, value[key]])),
          specLines: Object.fromEntries(specKeys.map((key) => [key, raw.lineOf(nodeAt(raw, key))])),
        }),
    source: { file: raw.file, line: raw.line },
  };
}

/** Keys every entry for a built-in tool may hold, for messages. */
export const OVERLAY_SETTINGS: readonly string[] = OVERLAY_KEYS.filter((key) => key !== 'type');

function nodeAt(raw: RawTool, key: string): Node | null {
  return isMap(raw.node) ? (((raw.node as YAMLMap).get(key, true) as Node | null) ?? raw.node) : raw.node;
}

function buildTool(
  raw: RawTool,
  providers: ProviderLookup,
  declared: ConfigDeclarations,
  problem: Problem,
  included?: IncludedFiles,
): ToolDefinition | undefined {
  if (typeof raw.value !== 'object' || raw.value === null || Array.isArray(raw.value)) {
    problem('must be a mapping of keys such as type and description');
    return undefined;
  }
  const value = raw.value as Record<string, unknown>;
  const at = (key: string): Node | null => nodeAt(raw, key);
  if (value.type === undefined) {
    problem('missing type');
    return undefined;
  }
  const type = String(value.type);
  const provider = providers.get(type);
  if (!provider) {
    const installed = providers.keys();
    problem(
      `has unknown type "${type}"${didYouMean(type, installed)} (installed types: ${installed.join(', ') || 'none'})`,
      at('type'),
    );
    return undefined;
  }
  const allowed = [...declared.known('tool'), ...provider.keys];
  const settings: Record<string, JsonValue> = {};
  for (const [key, setting] of Object.entries(value)) {
    if ((COMMON_TOOL_KEYS as readonly string[]).includes(key) || provider.keys.includes(key)) continue;
    const owners = declared.owners('tool', key);
    if (!owners) {
      problem(`has unknown key "${key}"${didYouMean(key, allowed)}`, at(key));
      continue;
    }
    settings[key] = setting as JsonValue;
    declared.check(owners, setting, (found) => {
      const shown = shownPath(key, found.path);
      problem(
        found.unknownKey ? `has unknown key "${shown}"${found.message}` : `has an invalid ${shown}: ${found.message}`,
        nodeAtPath(at(key), found.path),
      );
    });
  }
  const spec = Object.fromEntries(Object.entries(value).filter(([key]) => provider.keys.includes(key)));
  const tool: ToolDefinition = {
    name: raw.name,
    type,
    description: typeof value.description === 'string' ? value.description : '',
    hidden: value.hidden === true,
    timeoutMs: parseTimeout(value.timeout, (m) => problem(m, at('timeout'))),
    maxOutput: parseMaxOutput(value.max_output, (m) => problem(m, at('max_output'))),
    parameters: parseParameters(value.parameters, at('parameters'), problem),
    ...definedShadow(checkShadowBlock(value.shadow, at('shadow'), declared, problem)),
    ...(Object.keys(settings).length > 0 ? { settings } : {}),
    spec,
    source: { file: raw.file, line: raw.line },
  };
  if (included)
    readFileKeys(tool, provider, resolve(included.root, raw.path), included, (m, key) => problem(m, at(key)));
  return applyProvider(tool, provider, problem);
}

function definedShadow(shadow: ToolDefinition['shadow']): Pick<ToolDefinition, 'shadow'> {
  return shadow === undefined ? {} : { shadow };
}

function applyProvider(tool: ToolDefinition, provider: DefinitionPreparer, problem: Problem): ToolDefinition {
  const prepared = provider.prepare?.(tool);
  for (const message of prepared?.problems ?? []) problem(message);
  if (tool.parameters.length === 0 && prepared?.inferredParameters) tool.parameters = prepared.inferredParameters;
  return tool;
}

function parseTimeout(value: unknown, problem: (message: string) => void): number | undefined {
  if (value === undefined || value === null) return undefined;
  const millis =
    typeof value === 'number' ? value * 1000 : typeof value === 'string' ? ms(value as ms.StringValue) : undefined;
  if (typeof millis !== 'number' || !Number.isFinite(millis) || millis <= 0) {
    problem(`has an invalid timeout ${JSON.stringify(value)} (use a duration such as "30s", "2m" or "500ms")`);
    return undefined;
  }
  return millis;
}

function parseMaxOutput(value: unknown, problem: (message: string) => void): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    problem(`has an invalid max_output ${JSON.stringify(value)} (a positive number of bytes)`);
    return undefined;
  }
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
