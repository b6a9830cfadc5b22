import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import type { PluginFailed, PluginLoaded } from '../events/catalog.js';
import { FactorlyError, messageOf } from '../kernel/base/errors.js';
import type { Token } from '../kernel/base/token.js';
import type { Scope } from '../kernel/container.js';
import type { Lifecycle } from '../kernel/lifecycle.js';
import { EXTENSION_POINTS, KernelTokens } from '../kernel/tokens.js';
import type { PluginDefinition, PluginInit } from './define-plugin.js';
import { checkApiVersion, checkManifest, type PluginSource } from './manifest.js';
import { orderPlugins, type LoadablePlugin } from './order.js';

/** Callers hand loadPlugins these; the type lives with the ordering that consumes it. */
export type { LoadablePlugin };

export interface PluginReport {
  loaded: PluginLoaded[];
  failed: PluginFailed[];
}

/**
 * Loads plugins the way DESIGN.md §2 describes: manifest and apiVersion checked before any code
 * runs, modules imported, ordered by `requires`, then registered and initialised one by one.
 * A plugin that fails is reported (with everything that requires it) and the rest keep working.
 * Loading one plugin is a transaction: when its `register` or `init` throws, everything it added to
 * any extension point is removed again, so a half-initialised plugin never decides or serves anything.
 */
export async function loadPlugins(
  sources: readonly PluginSource[],
  inline: readonly LoadablePlugin[],
  scope: Scope,
  lifecycle: Lifecycle,
): Promise<PluginReport> {
  const report: PluginReport = { loaded: [], failed: [] };
  const fail = (source: PluginSource, id: string, error: unknown): void => {
    const code = FactorlyError.isInstance(error) ? error.code : 'PLUGIN_INIT_FAILED';
    report.failed.push({ id, root: source.root, reason: messageOf(error), code });
  };
  const candidates = [...inline];
  for (const source of sources.filter((s) => s.manifest !== undefined)) {
    try {
      candidates.push({ source, definition: await importDefinition(source) });
    } catch (error) {
      fail(source, source.name, error);
    }
  }
  const { ordered, refused } = orderPlugins(candidates);
  for (const { plugin, error } of refused) fail(plugin.source, plugin.definition.id, error);
  const failedIds = new Set(report.failed.map((f) => f.id));
  for (const plugin of ordered) {
    const missing = (plugin.definition.requires ?? []).find((id) => failedIds.has(id));
    if (missing) {
      fail(plugin.source, plugin.definition.id, new FactorlyError('PLUGIN_DEPENDENCY', `plugin "${plugin.definition.id}" requires plugin "${missing}", which failed to load`));
      failedIds.add(plugin.definition.id);
      continue;
    }
    const rollback = checkpoint(scope);
    try {
      await initPlugin(plugin, scope.child(), lifecycle);
      const { source, definition } = plugin;
      report.loaded.push({ id: definition.id, version: source.version, root: source.root, source: source.kind });
    } catch (error) {
      rollback();
      fail(plugin.source, plugin.definition.id, error);
      failedIds.add(plugin.definition.id);
    }
  }
  return report;
}

/** One undo for every extension point of the scope. (Stop hooks a failed plugin registered stay: they release what it started.) */
function checkpoint(scope: Scope): () => void {
  const undo = EXTENSION_POINTS.filter((token) => scope.isRegistered(token)).map((token) => scope.resolve(token).checkpoint());
  return () => {
    for (const step of undo) step();
  };
}

async function importDefinition(source: PluginSource): Promise<PluginDefinition> {
  const manifest = checkManifest(source);
  const module = (await import(pathToFileURL(join(source.root, manifest.plugin)).href)) as Record<string, unknown>;
  const definition = (module.default ?? module.plugin) as PluginDefinition | undefined;
  if (!definition || typeof definition.id !== 'string' || typeof definition.register !== 'function') {
    throw new FactorlyError('PLUGIN_INVALID', `plugin package "${source.name}": ${manifest.plugin} must export a definePlugin(...) value as default or "plugin"`);
  }
  checkApiVersion(definition.apiVersion, `plugin "${definition.id}"`);
  return definition;
}

async function initPlugin(plugin: LoadablePlugin, scope: Scope, lifecycle: Lifecycle): Promise<void> {
  const { id } = plugin.definition;
  let init: PluginInit<Record<string, Token<unknown>>> | undefined;
  plugin.definition.register({
    tokens: KernelTokens,
    registerInit(value) {
      if (init) throw new FactorlyError('PLUGIN_INVALID', `plugin "${id}" called registerInit twice`);
      init = value as unknown as PluginInit<Record<string, Token<unknown>>>;
    },
  });
  if (!init) throw new FactorlyError('PLUGIN_INVALID', `plugin "${id}" did not call registerInit`);
  const deps = Object.fromEntries(Object.entries(init.deps).map(([name, token]) => [name, scope.resolve(token)]));
  try {
    await init.init(deps as never, { pluginId: id, onStop: (hook) => lifecycle.onStop(`plugin ${id}`, hook) });
  } catch (error) {
    if (FactorlyError.isInstance(error)) throw error;
    throw new FactorlyError('PLUGIN_INIT_FAILED', `plugin "${id}" failed to initialise: ${messageOf(error)}`, { cause: error });
  }
}
