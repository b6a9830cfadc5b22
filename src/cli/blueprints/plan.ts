import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { FactorlyError } from '../../base/errors.js';
import { readBlueprint, type Blueprint } from './format.js';
import { KERNEL_SETTINGS } from '../../config/declared.js';
import { blueprintsDir } from '../../config/files.js';
import type { Kernel } from '../../kernel/kernel.js';
import { blueprintText, type BlueprintText, type SourceOptions } from './sources.js';
import { summarize } from './summary.js';
import { applySets, withRecord } from './text.js';
import type { BlueprintPlan, BlueprintRequest, BlueprintVaultKey } from '../../editing/contracts.js';

/**
 * Works out an install without writing anything: finds the blueprint (bundled name, path, URL or
 * text), reads and checks it, applies `--set`, then checks it against the merged config: the names
 * it brings are free, what it requires is there, it is not installed yet, and the config loads with
 * it (its tools checked by their providers, its OAuth providers by the oauth plugin). The CLI and the
 * web UI both call this, then `installBlueprint`. An unreadable blueprint throws `BLUEPRINT_INVALID`;
 * a blueprint that reads but does not fit comes back with its conflicts, missing requirements and
 * problems listed.
 */
export async function planBlueprint(
  kernel: Kernel,
  request: BlueprintRequest,
  options: SourceOptions,
): Promise<BlueprintPlan> {
  const given = await requestedText(request, options);
  const known = knownSettings(kernel);
  const original = readBlueprint(given.text, given.shown, known);
  const set = request.set ?? {};
  const text = Object.keys(set).length === 0 ? given.text : applySets(original, set);
  const blueprint = text === given.text ? original : readBlueprint(text, given.shown, known);
  const name = blueprint.header.name;
  const path = join(blueprintsDir(kernel.paths), `${name}.yaml`);
  const file = relative(kernel.paths.baseDir, path) || path;
  const source = given.origin.kind === 'bundled' ? `bundled:${given.origin.ref}` : given.origin.ref;
  const yaml = withRecord(text, source, set);
  const alreadyInstalled = existsSync(path);
  // Reinstalling is refused as such: the installed file's own tools are no conflict of their own.
  const conflicts = alreadyInstalled ? [] : conflictsOf(kernel, blueprint);
  const missing = missingOf(kernel, blueprint);
  const problems = [
    ...placeholders(blueprint),
    ...(alreadyInstalled || conflicts.length > 0 ? [] : await loadProblems(kernel, path, file, yaml, given.shown)),
  ];
  return {
    ...summarize(blueprint, { installed: alreadyInstalled }),
    file,
    source,
    set,
    vaultKeyStates: await vaultKeyStates(kernel, blueprint.header.requires.vaultKeys),
    conflicts,
    missing,
    alreadyInstalled,
    problems,
    yaml,
  };
}

async function requestedText(request: BlueprintRequest, options: SourceOptions): Promise<BlueprintText> {
  if (request.text !== undefined) {
    const label = request.label ?? 'pasted';
    return { text: request.text, shown: label, origin: { kind: 'text', ref: label } };
  }
  if (!request.source) throw new FactorlyError('USAGE', 'name a blueprint to install: a bundled name, a file or a URL');
  return blueprintText(request.source, options);
}

/** The top-level keys this factorly knows (its own and its plugins'), so a misspelt one is named as such. */
export function knownSettings(kernel: Kernel): string[] {
  return [...KERNEL_SETTINGS, ...kernel.inventory().flatMap((plugin) => plugin.config.settings)];
}

/** Names it brings that the config already serves: a tool (built-ins included) or an OAuth provider. */
function conflictsOf(kernel: Kernel, blueprint: Blueprint): string[] {
  const conflicts: string[] = [];
  for (const tool of blueprint.tools) {
    const existing = kernel.registry.get(tool.name) ?? kernel.config.tools.find((t) => t.name === tool.name);
    if (existing)
      conflicts.push(`tool "${tool.name}" already defined in ${existing.source.file}:${existing.source.line}`);
  }
  const providers = configuredProviders(kernel);
  for (const name of Object.keys(blueprint.oauthProviders)) {
    if (providers.includes(name)) conflicts.push(`oauth provider "${name}" already defined`);
  }
  return conflicts;
}

function missingOf(kernel: Kernel, blueprint: Blueprint): string[] {
  const { requires } = blueprint.header;
  const missing: string[] = [];
  for (const tool of requires.tools) {
    if (!kernel.registry.get(tool) && !blueprint.tools.some((t) => t.name === tool)) missing.push(`tool "${tool}"`);
  }
  const providers = [...configuredProviders(kernel), ...Object.keys(blueprint.oauthProviders)];
  for (const provider of requires.oauthProviders) {
    if (!providers.includes(provider)) missing.push(`oauth provider "${provider}"`);
  }
  return missing;
}

function configuredProviders(kernel: Kernel): string[] {
  const block = kernel.config.settings.oauth_providers;
  return typeof block === 'object' && block !== null ? Object.keys(block) : [];
}

/**
 * The config as it would load with the blueprint written: every problem the loader finds, with the
 * blueprint's own file and line (the text keeps the author's lines; its install record comes last).
 */
async function loadProblems(
  kernel: Kernel,
  path: string,
  file: string,
  yaml: string,
  shown: string,
): Promise<string[]> {
  try {
    await kernel.checkConfig(new Map([[path, yaml]]));
    return [];
  } catch (error) {
    if (!FactorlyError.isInstance(error) || error.code !== 'CONFIG_INVALID') throw error;
    const data = error.data as { problems?: unknown } | undefined;
    const lines = Array.isArray(data?.problems) ? data.problems.map(String) : error.message.split('\n');
    return lines.map((line) => line.replaceAll(`${file}:`, `${shown}:`));
  }
}

/** Which of a blueprint's vault keys the vault holds (a locked vault holds none, as far as this can tell). */
export async function vaultKeyStates(kernel: Kernel, keys: readonly string[]): Promise<BlueprintVaultKey[]> {
  const vault = kernel.backends.get('vault');
  const states: BlueprintVaultKey[] = [];
  for (const key of keys) {
    let present = false;
    try {
      present = (await vault?.read?.(key))?.value !== undefined;
    } catch {
      // A locked vault (no password on this terminal): the key is asked for, or listed, as missing.
      present = false;
    }
    states.push({ key, present });
  }
  return states;
}

/**
 * A URL with a `<placeholder>` (`https://<your-site>.atlassian.net/rest/api/3`) is the person's own
 * host: the blueprint installs once `--set` gives it, never with the placeholder in force.
 */
function placeholders(blueprint: Blueprint): string[] {
  const found = new Map<string, string>();
  for (const tool of blueprint.tools) {
    const value = (tool.value ?? {}) as Record<string, unknown>;
    const key = value.type === 'mcp' ? 'url' : 'base_url';
    if (typeof value[key] === 'string' && /<[^>]+>/.test(value[key])) found.set(key, value[key]);
  }
  for (const provider of Object.values(blueprint.oauthProviders)) {
    for (const key of ['issuer', 'auth_url', 'token_url']) {
      if (typeof provider[key] === 'string' && /<[^>]+>/.test(provider[key])) found.set(key, provider[key]);
    }
  }
  return [...found].map(
    ([key, url]) => `${key} is ${url}: install with --set ${key}=<your own URL> (see the blueprint's auth guide)`,
  );
}
