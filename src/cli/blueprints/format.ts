import { isMap, type Node, type YAMLMap } from 'yaml';
import { FactorlyError } from '../../base/errors.js';
import { HEADER_SCHEMA, readHeader, type BlueprintHeader } from '../../config/blueprint-header.js';
import { DESCRIPTIVE_SETTINGS } from '../../config/declared.js';
import { schemaProblems, shownPath } from '../../config/json-schema.js';
import { secretReferences } from '../../config/secret-references.js';
import { BUILTIN_PREFIX } from '../../config/tool-schema.js';
import { toolNameProblem } from '../../config/tool-name.js';
import { nodeAtPath } from '../../config/yaml-path.js';
import { parseConfigSource, type ConfigSource, type RawTool } from '../../config/yaml-source.js';

export type { BlueprintHeader, BlueprintRequires, AuthType } from '../../config/blueprint-header.js';

/** What a blueprint may hold besides its header: REST tools, remote MCP servers and OAuth providers. */
const CONTENT_KEYS = ['tools', 'oauth_providers'] as const;
/** Tool types a blueprint may bring: nothing that runs a program on this machine. */
const BLUEPRINT_TYPES = ['rest', 'mcp'] as const;
/** The keys of an `mcp` entry that start a local process. */
const LOCAL_MCP_KEYS = ['command', 'args', 'env', 'env_passthrough'] as const;
/** The secret backends a blueprint's tools may name: the vault keys it declares, and OAuth tokens. */
const BLUEPRINT_BACKENDS = ['vault', 'oauth'] as const;

/** A blueprint read and checked on its own (its fit with a project's config is checked at install). */
export interface Blueprint {
  header: BlueprintHeader;
  /** The blueprint's text as given. */
  text: string;
  /** Where it came from, as messages show it (a bundled name's file, a path, a URL). */
  shown: string;
  tools: RawTool[];
  /** The `oauth_providers` block as written (each checked by the oauth plugin at install). */
  oauthProviders: Record<string, Record<string, unknown>>;
}

/**
 * Reads a blueprint: a config file with the reference's header (`name`, `version`, `auth_type`,
 * `requires`, …) that brings only `rest` tools, `mcp` tools with a `url`, and `oauth_providers`.
 * Throws one `BLUEPRINT_INVALID` error listing every problem, each with its file and line.
 * `known`: every top-level key the loaded plugins know (so a misspelt one is named as such).
 */
export function readBlueprint(text: string, shown: string, known: readonly string[]): Blueprint {
  let source: ConfigSource;
  try {
    source = parseConfigSource(text, shown, shown, true, [...new Set([...known, ...DESCRIPTIVE_SETTINGS])]);
  } catch (error) {
    throw FactorlyError.isInstance(error)
      ? new FactorlyError('BLUEPRINT_INVALID', error.message.replace(/^config: /, 'blueprint: '))
      : error;
  }
  const problems: string[] = [];
  const at = (node: Node | null | undefined): string => `${shown}:${source.lineOf(node)}`;
  checkHeader(source, problems, at);
  const header = problems.length === 0 ? readHeader(source.settings) : undefined;
  for (const key of Object.keys(source.settings)) {
    if ((DESCRIPTIVE_SETTINGS as readonly string[]).includes(key)) continue;
    if ((CONTENT_KEYS as readonly string[]).includes(key)) continue;
    problems.push(
      `blueprint: "${key}" is not allowed in a blueprint (only tools, oauth_providers and the header) (${shown}:${source.settingLines?.[key]?.[''] ?? 1})`,
    );
  }
  const oauthProviders = isRecord(source.settings.oauth_providers)
    ? (source.settings.oauth_providers as Blueprint['oauthProviders'])
    : {};
  for (const tool of source.tools) checkTool(tool, problems);
  if (header) checkReferences(source, header, oauthProviders, problems);
  if (problems.length > 0 || !header)
    throw new FactorlyError('BLUEPRINT_INVALID', problems.join('\n'), { data: { problems } });
  return { header, text, shown, tools: source.tools, oauthProviders };
}

function checkHeader(source: ConfigSource, problems: string[], at: (node: Node | null | undefined) => string): void {
  const header = Object.fromEntries(
    Object.entries(source.settings).filter(([key]) => (DESCRIPTIVE_SETTINGS as readonly string[]).includes(key)),
  );
  for (const found of schemaProblems(HEADER_SCHEMA, header, 'blueprint')) {
    const shown = shownPath('', found.path).replace(/^\./, '');
    const [key, ...below] = found.path;
    const node = key === undefined ? null : nodeAtPath(source.settingNodes[String(key)] ?? null, below);
    const where = at(node);
    if (found.path.length === 0) problems.push(`blueprint: ${found.message} (${where})`);
    else if (found.unknownKey) problems.push(`blueprint: unknown key "${shown}"${found.message} (${where})`);
    else problems.push(`blueprint: invalid ${shown}: ${found.message} (${where})`);
  }
}

function checkTool(tool: RawTool, problems: string[]): void {
  const problem = (message: string, node?: Node | null): void => {
    problems.push(`blueprint: tool "${tool.name}" ${message} (${tool.file}:${node ? tool.lineOf(node) : tool.line})`);
  };
  const badName = toolNameProblem(tool.name);
  if (badName) return problem(`has a name that ${badName}`);
  if (tool.name.startsWith(BUILTIN_PREFIX))
    return problem(`would override a built-in ("${BUILTIN_PREFIX}*" names are factorly's own)`);
  if (!isRecord(tool.value)) return;
  const value = tool.value;
  const node = (key: string): Node | null =>
    isMap(tool.node) ? (((tool.node as YAMLMap).get(key, true) as Node | null) ?? tool.node) : tool.node;
  if (!(BLUEPRINT_TYPES as readonly unknown[]).includes(value.type))
    return problem(
      `has type ${JSON.stringify(value.type ?? null)}: a blueprint brings only ${BLUEPRINT_TYPES.join(' and ')} tools (nothing that runs on this machine)`,
      node('type'),
    );
  if (value.type !== 'mcp') return;
  const local = LOCAL_MCP_KEYS.find((key) => value[key] !== undefined);
  if (local)
    problem(
      `is an mcp server started on this machine ("${local}"); a blueprint names remote servers by url`,
      node(local),
    );
  else if (typeof value.url !== 'string') problem('is an mcp tool without a url', node('type'));
  if (typeof value.prefix === 'string' && value.prefix.startsWith(BUILTIN_PREFIX))
    problem(`has prefix "${value.prefix}", which would name tools like built-ins`, node('prefix'));
}

/**
 * Every secret a blueprint's tools and providers use is one it declares: a vault key listed in
 * `requires.vault_keys` (so the person is asked for it, and sees it) or an OAuth provider it brings or
 * requires. Another backend (`{{env:AWS_SECRET_ACCESS_KEY}}`) would hand a local secret to its hosts.
 */
function checkReferences(
  source: ConfigSource,
  header: BlueprintHeader,
  providers: Blueprint['oauthProviders'],
  problems: string[],
): void {
  const knownProviders = new Set([...Object.keys(providers), ...header.requires.oauthProviders]);
  const check = (value: unknown, where: string): void => {
    for (const reference of secretReferences(value)) {
      const [backend, key] = [reference.slice(0, reference.indexOf(':')), reference.slice(reference.indexOf(':') + 1)];
      if (!(BLUEPRINT_BACKENDS as readonly string[]).includes(backend))
        problems.push(
          `blueprint: ${where} uses {{${reference}}}: a blueprint's secrets come from the vault or an OAuth provider (${BLUEPRINT_BACKENDS.join(', ')})`,
        );
      else if (backend === 'vault' && !header.requires.vaultKeys.includes(key))
        problems.push(`blueprint: ${where} uses {{vault:${key}}}, which requires.vault_keys does not list`);
      else if (backend === 'oauth' && !knownProviders.has(key))
        problems.push(`blueprint: ${where} uses {{oauth:${key}}}, an OAuth provider it neither brings nor requires`);
    }
  };
  for (const tool of source.tools) {
    const where = `tool "${tool.name}" (${tool.file}:${tool.line})`;
    check(tool.value, where);
    const auth = isRecord(tool.value) ? tool.value.auth : undefined;
    if (
      isRecord(auth) &&
      auth.type === 'oauth' &&
      typeof auth.provider === 'string' &&
      !knownProviders.has(auth.provider)
    )
      problems.push(`blueprint: ${where} uses OAuth provider "${auth.provider}", which it neither brings nor requires`);
  }
  for (const [name, provider] of Object.entries(providers)) {
    check(provider, `oauth provider "${name}" (${source.shown}:${source.settingLines?.oauth_providers?.[name] ?? 1})`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
