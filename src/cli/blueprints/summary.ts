import type { Blueprint } from './format.js';
import { parseParameters } from '../../config/parameter-schema.js';
import { hostsOf } from './text.js';
import type { BlueprintSummary, BlueprintToolSummary } from '../../editing/contracts.js';

/** A read blueprint as a listing shows it: its header, tools, providers, keys and hosts. */
export function summarize(
  blueprint: Blueprint,
  extra: Partial<BlueprintSummary> & { installed: boolean },
): BlueprintSummary {
  const { header } = blueprint;
  return {
    name: header.name,
    ...defined({
      displayName: header.displayName,
      version: header.version,
      description: header.description,
      category: header.category,
      homepage: header.homepage,
      authType: header.authType,
      authGuide: header.authGuide,
    }),
    tools: blueprint.tools.map(toolSummary),
    oauthProviders: Object.keys(blueprint.oauthProviders),
    vaultKeys: header.requires.vaultKeys,
    hosts: hostsOf(blueprint),
    ...extra,
  };
}

function toolSummary(tool: Blueprint['tools'][number]): BlueprintToolSummary {
  const value = (tool.value ?? {}) as Record<string, unknown>;
  const shadow = (value.shadow ?? {}) as Record<string, unknown>;
  const type = String(value.type);
  const endpoint =
    type === 'mcp'
      ? String(value.url ?? '')
      : `${String(value.method ?? 'GET').toUpperCase()} ${typeof value.path === 'string' ? value.path : '/'}`;
  return {
    name: tool.name,
    type,
    description: typeof value.description === 'string' ? value.description : '',
    endpoint,
    // Checked when the blueprint is loaded into a config; here only read for showing.
    parameters: parseParameters(value.parameters, null, () => undefined),
    confirm: shadow.confirm === true,
  };
}

function defined<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;
}
