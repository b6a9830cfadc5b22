import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import type { PluginFailed, PluginLoaded } from '../events/catalog.js';
import { FactorlyError, messageOf } from '../base/errors.js';
import type { ConfigDeclarations } from '../config/declared.js';
import type { Scope } from '../kernel/container.js';
import { KernelPhase, type Lifecycle } from '../kernel/lifecycle.js';
import { EXTENSION_POINTS } from '../kernel/tokens.js';
import type { PluginDefinition } from './define-plugin.js';
import { checkApiVersion, checkManifest, type PluginSource } from './manifest.js';
import { orderPlugins, type LoadablePlugin } from './order.js';
import { declareConfig, PluginConfigs } from './plugin-configs.js';
import { resolveFactorlyForPlugins } from './factorly-resolution.js';
import { ProvidedTokens, type ProvidedToken } from './provided.js';
import { registerPlugin, resolveDeps, type Registered } from './registration.js';

/** Callers hand loadPlugins these; the type lives with the ordering that consumes it. */
export type { LoadablePlugin };

export interface PluginReport {
  loaded: PluginLoaded[];
  failed: PluginFailed[];
}

/** The plugins as loaded: what they report, what they declared and provided, and how to hand them a reloaded config. */
export interface LoadedPlugins extends PluginReport {
  /** The config keys of the plugins that loaded (a failed plugin's keys are unknown, so a tool using them does not load). */
  declared: ConfigDeclarations;
  /** The tokens the loaded plugins (and the host) provide. */
  provided: readonly ProvidedToken[];
  /** The tokens each loaded plugin cannot do without, beyond the kernel's (by token id). */
  needs: ReadonlyMap<string, readonly string[]>;
  /** Hands every plugin whose block changed its new value (`PluginContext.onConfig`). */
  reconfigure(settings: Record<string, unknown>): Promise<void>;
}

/**
 * Reads the config's settings once the plugins that may own its keys are known and before any of
 * them initialises (each is handed its block); throws when they do not check.
 */
export type SettingsReader = (declared: ConfigDeclarations) => Promise<Record<string, unknown>>;

export interface LoadOptions {
  readSettings?: SettingsReader;
  /** Tokens the host running the kernel provides (the CLI's `HostServices`), as `[token, value]`. */
  hostTokens?: readonly (readonly [symbol, unknown])[];
  /** Told each plugin whose init succeeded, in init order, so what it contributed stops with it (in reverse). */
  started?: (pluginId: string) => void;
}

/**
 * Loads plugins as docs/architecture.md ("Boot") describes: manifest and apiVersion checked
 * before any code runs, modules imported, ordered by `requires`, every plugin registered (its config keys and the
 * tokens it provides known), the config's settings read, then each initialised in order.
 * A plugin that fails is reported (with everything that requires it) and the rest keep working.
 * Initialising one plugin is a transaction: when its `init` throws, everything it added to any
 * extension point is removed again, so a half-initialised plugin never decides or serves anything.
 */
export async function loadPlugins(
  sources: readonly PluginSource[],
  inline: readonly LoadablePlugin[],
  scope: Scope,
  lifecycle: Lifecycle,
  options: LoadOptions = {},
): Promise<LoadedPlugins> {
  const report: PluginReport = { loaded: [], failed: [] };
  const failedIds = new Set<string>();
  const fail = (source: PluginSource, id: string, error: unknown): void => {
    const code = FactorlyError.isInstance(error) ? error.code : 'PLUGIN_INIT_FAILED';
    report.failed.push({ id, root: source.root, reason: messageOf(error), code });
    failedIds.add(id);
  };
  const candidates = [...inline, ...(await importAll(sources, fail))];
  const { ordered, refused } = orderPlugins(candidates);
  for (const { plugin, error } of refused) fail(plugin.source, plugin.definition.id, error);
  const provided = new ProvidedTokens();
  for (const [token, value] of options.hostTokens ?? []) provided.provide('host', token as never, value);
  lifecycle.enter(KernelPhase.Register);
  const registered = registerAll(
    declareConfig(ordered, (plugin, error) => fail(plugin.source, plugin.definition.id, error)).plugins,
    provided,
    fail,
  );
  const { declared } = declareConfig(registered.map((each) => each.plugin));
  const configs = new PluginConfigs(declared, await (options.readSettings ?? (async () => ({})))(declared));
  lifecycle.enter(KernelPhase.Init);
  for (const each of registered) {
    const { source, definition } = each.plugin;
    const missing = (definition.requires ?? []).find((id) => failedIds.has(id));
    try {
      if (missing)
        throw new FactorlyError(
          'PLUGIN_DEPENDENCY',
          `plugin "${definition.id}" requires plugin "${missing}", which failed to load`,
        );
      await initPlugin(each, scope, lifecycle, configs, provided);
      options.started?.(definition.id);
      report.loaded.push({ id: definition.id, version: source.version, root: source.root, source: source.kind });
    } catch (error) {
      provided.withdraw(definition.id);
      fail(source, definition.id, error);
    }
  }
  const loaded = declareConfig(
    registered.filter((each) => !failedIds.has(each.plugin.definition.id)).map((each) => each.plugin),
  ).declared;
  const needs = new Map(
    registered
      .filter((each) => !failedIds.has(each.plugin.definition.id))
      .map((each) => [each.plugin.definition.id, each.needs]),
  );
  return {
    ...report,
    declared: loaded,
    provided: provided.list(),
    needs,
    reconfigure: (next) => configs.reconfigure(next),
  };
}

function registerAll(
  plugins: readonly LoadablePlugin[],
  provided: ProvidedTokens,
  fail: (source: PluginSource, id: string, error: unknown) => void,
): Registered[] {
  const registered: Registered[] = [];
  for (const plugin of plugins) {
    try {
      registered.push(registerPlugin(plugin, provided));
    } catch (error) {
      fail(plugin.source, plugin.definition.id, error);
    }
  }
  return registered;
}

/** One undo for every extension point of the scope and every registry a plugin provided. (Stop hooks a failed plugin registered stay: they release what it started.) */
function checkpoint(scope: Scope, provided: ProvidedTokens): () => void {
  const points = [
    ...EXTENSION_POINTS.filter((token) => scope.isRegistered(token)).map((token) => scope.resolve(token)),
    ...provided.checkpointed(),
  ];
  const undo = points.map((point) => point.checkpoint());
  return () => {
    for (const step of undo) step();
  };
}

/** Each package's definition, its manifest and apiVersion checked; one that fails is reported by the best name known. */
async function importAll(
  sources: readonly PluginSource[],
  fail: (source: PluginSource, id: string, error: unknown) => void,
): Promise<LoadablePlugin[]> {
  const candidates: LoadablePlugin[] = [];
  for (const source of sources.filter((s) => s.manifest !== undefined)) {
    let definition: PluginDefinition;
    try {
      definition = await importDefinition(source);
    } catch (error) {
      fail(source, source.name, error);
      continue;
    }
    try {
      checkApiVersion(definition.apiVersion, `plugin "${definition.id}"`);
      candidates.push({ source, definition });
    } catch (error) {
      // Its module was read, so it is known by its id from here on (`plugins inspect <id>`).
      fail(source, definition.id, error);
    }
  }
  return candidates;
}

async function importDefinition(source: PluginSource): Promise<PluginDefinition> {
  const manifest = checkManifest(source);
  if (source.kind === 'user' || source.kind === 'link') resolveFactorlyForPlugins();
  const module = (await import(pathToFileURL(join(source.root, manifest.plugin)).href)) as Record<string, unknown>;
  const definition = (module.default ?? module.plugin) as PluginDefinition | undefined;
  if (!definition || typeof definition.id !== 'string' || typeof definition.register !== 'function') {
    throw new FactorlyError(
      'PLUGIN_INVALID',
      `plugin package "${source.name}": ${manifest.plugin} must export a definePlugin(...) value as default or "plugin"`,
    );
  }
  return definition;
}

async function initPlugin(
  { plugin, init }: Registered,
  scope: Scope,
  lifecycle: Lifecycle,
  configs: PluginConfigs,
  provided: ProvidedTokens,
): Promise<void> {
  const { id } = plugin.definition;
  const deps = resolveDeps(id, init.deps, provided, scope.child());
  const rollback = checkpoint(scope, provided);
  const context = {
    pluginId: id,
    get config() {
      return configs.of(id);
    },
    onConfig: (listener: (value: unknown) => void | Promise<void>) => configs.listen(id, listener),
    onStop: (hook: () => Promise<void> | void) => lifecycle.onStop(`plugin ${id}`, hook),
  };
  try {
    await init.init(deps as never, context);
  } catch (error) {
    rollback();
    if (FactorlyError.isInstance(error)) throw error;
    throw new FactorlyError('PLUGIN_INIT_FAILED', `plugin "${id}" failed to initialise: ${messageOf(error)}`, {
      cause: error,
    });
  }
}
