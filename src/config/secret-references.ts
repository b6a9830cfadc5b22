import type { Params } from '../events/catalog.js';
import type { ParameterSpec, ToolDefinition } from './tool-definition.js';

/**
 * `{{backend:key}}` or `{{backend:key|default}}`; a leading backslash escapes the braces. Groups:
 * 1 the escape, 2 the backend, 3 the key (trimmed where used), 4 the default.
 */
export const SECRET_REFERENCE = /(\\?)\{\{([A-Za-z0-9_][A-Za-z0-9_-]*):([^}|]+?)(?:\|([^}]*))?\}\}/g;

/**
 * The secrets a value refers to (`<backend>:KEY`, one per reference), searched through every string
 * it holds: what a tool's config entry needs from the backends, or what an agent's param names.
 */
export function secretReferences(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === 'string') {
    for (const match of value.matchAll(SECRET_REFERENCE)) if (!match[1]) into.add(`${match[2]}:${match[3].trim()}`);
  } else if (Array.isArray(value)) {
    for (const item of value) secretReferences(item, into);
  } else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) secretReferences(item, into);
  }
  return into;
}

/** `backend:KEY` when `text` is exactly one reference without a default (`{{backend:KEY}}`), else undefined. */
export function wholeReference(text: string): string | undefined {
  const match = /^\{\{([A-Za-z0-9_][A-Za-z0-9_-]*):([^}|]+)\}\}$/.exec(text);
  return match && match[2].trim() !== '' ? `${match[1]}:${match[2].trim()}` : undefined;
}

/** Per definition (a reload makes new ones): the pipeline asks on every call. */
const TOOL_REFERENCES = new WeakMap<object, ReadonlySet<string>>();

/** The secrets a tool's config entry refers to: in its spec, its parameters' defaults and what they may hydrate. */
export function toolSecretReferences(tool: Pick<ToolDefinition, 'spec' | 'parameters'>): ReadonlySet<string> {
  let references = TOOL_REFERENCES.get(tool);
  if (!references) {
    const found = secretReferences([tool.spec, tool.parameters.map((p) => p.default)]);
    for (const parameter of tool.parameters) for (const listed of parameter.hydrateVaultRefs ?? []) found.add(listed);
    TOOL_REFERENCES.set(tool, (references = found));
  }
  return references;
}

/**
 * The references an agent wrote in a hydrating parameter that its config does not list, by
 * parameter (as `{{backend:KEY}}`): they stay literal, and the call records that they were refused.
 */
export function refusedHydration(parameters: readonly ParameterSpec[], params: Params): Record<string, string[]> {
  const refused: Record<string, string[]> = {};
  for (const { name, hydrateVaultRefs } of parameters) {
    if (!hydrateVaultRefs || !Object.hasOwn(params, name)) continue;
    const unlisted = [...secretReferences(params[name])].filter((reference) => !hydrateVaultRefs.includes(reference));
    if (unlisted.length > 0) refused[name] = unlisted.map((reference) => `{{${reference}}}`);
  }
  return refused;
}
