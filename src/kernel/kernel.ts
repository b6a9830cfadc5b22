import { dirname, join } from 'node:path';
import { EventBus } from '../events/bus.js';
import type { EventLog } from '../events/log.js';
import type { WriterLog } from '../events/writer-log.js';
import { loadPlugins, type LoadablePlugin, type LoadedPlugins, type PluginReport } from '../plugins/host.js';
import { inventoryOf, type PluginInventory } from '../plugins/inventory.js';
import type { PluginSource } from '../plugins/manifest.js';
import { BootRecord, type BootSources, type EffectiveRecord } from './boot-record.js';
import { CallPipeline } from './call-pipeline.js';
import { Checkpointer } from './checkpointer.js';
import { planOf, pluginsForCall, readPlan, writePlan } from './boot-plan.js';
import { DEFAULT_CHECKPOINT_SETTINGS } from './config/checkpoint-settings.js';
import { ConfigCache } from './config/config-cache.js';
import type { ConfigDeclarations } from './config/declared.js';
import type { ConfigSettings, ConfigTexts, InlineConfig, LoadedConfig } from './config/load.js';
import { findConfig, globalConfigDir, type ProjectPaths } from './config/paths.js';
import { createRootScope, type Scope } from './container.js';
import type {
  ConfigListener,
  ConfirmChannel,
  FactorlyInterface,
  OutputProcessor,
  SecretBackend,
  ShadowRule,
} from './contracts/extensions.js';
import type { ToolDefinition, ToolProvider, ToolSource } from './contracts/tool.js';
import type { SandboxEngine } from './contracts/sandbox.js';
import { bindLogEngines, checkLogEngine, defaultLogSettings, openConfiguredLog } from './log-engines.js';
import { collectTools } from './collect-tools.js';
import { ConfigWatcher } from './config-watch.js';
import { LateGateway } from './late-gateway.js';
import { LiveCatalog } from './live-catalog.js';
import { processErrorText } from './process-output.js';
import { openKernelLog } from './kernel-log.js';
import { KernelPhase, Lifecycle } from './lifecycle.js';
import { ToolRegistry } from './registry.js';
import { CallSecretScope } from './secret-scope.js';
import { ShadowGate } from './shadow-gate.js';
import { KeyedSlot, OrderedSlot } from './slots.js';
import type { Token } from './base/token.js';
import { KernelTokens } from './tokens.js';

export interface KernelOptions {
  cwd: string;
  /** `-c/--config`. */
  configPath?: string;
  globalDir?: string;
  /** Packages discovered through oclif's plugin list. */
  plugins?: readonly PluginSource[];
  /** Plugins given as values (tests, embedding). */
  inlinePlugins?: readonly LoadablePlugin[];
  /**
   * false: serve config entries as written, without asking providers to expand them (no upstream
   * MCP server is started). For commands that manage the project rather than call tools, such as
   * setting a secret, which must work before the secrets an upstream server needs exist.
   */
  expandTools?: boolean;
  /** Use this log instead of the project's LMDB file (tests, dry runs). */
  log?: EventLog;
  /**
   * Tools described in text instead of the project's config files (`wrap`). The project, when there
   * is one, still holds the event log; without one the global config dir does.
   */
  inlineConfig?: InlineConfig;
  /**
   * Where the normalised config may be cached between processes (the CLI's cache dir), keyed by the
   * config files' digests and the plugins (`plugins`) that validated it. Without it, every boot parses the files.
   */
  cacheDir?: string;
  /** The one tool this process will call (`factorly call`): with the caches, only the plugins that call needs are loaded. */
  need?: { tool: string };
  /** Tokens the host running the kernel provides to plugins (`[token, value]`, ids `host.<name>`), as plugins provide theirs. */
  hostTokens?: readonly (readonly [symbol, unknown])[];
}

export interface Kernel {
  readonly paths: ProjectPaths;
  readonly config: LoadedConfig;
  readonly registry: ToolRegistry;
  readonly pipeline: CallPipeline;
  readonly plugins: PluginReport;
  readonly bus: EventBus;
  /** Tool providers by type (read them; plugins register them). */
  readonly providers: KeyedSlot<ToolProvider>;
  /** Installed secret backends by name, as plugins registered them. */
  readonly backends: KeyedSlot<SecretBackend>;
  /** Ways in (`mcp`, `ui`) by name, as plugins registered them. */
  readonly interfaces: KeyedSlot<FactorlyInterface>;
  /** The shadow rules' gate (its live rule state is compared with replays in tests). */
  readonly shadow: ShadowGate;
  /** Signs checkpoints of the log's Merkle tree (every N events, on a timer while serving, at stop). */
  readonly checkpoints: Checkpointer;
  /** The event log, opened on first use. */
  log(): EventLog;
  /** A bare log (no writer record, bus or projections) as `settings` describe it, to move events between logs. */
  openLog(settings: LoadedConfig['log'], clock?: () => Date): EventLog;
  /** Opens the log and closes what writers that have ended left open (their calls: interrupted). */
  recover(): Promise<void>;
  /** Every plugin, loaded or failed, with what it contributes, provides and declares (`plugins inspect`). */
  inventory(): PluginInventory[];
  /** The value a plugin (or the host) provided under `token` (`registrar.provide`), if one did. */
  provided<T>(token: Token<T>): T | undefined;
  /** Re-reads the config files; true when they changed and the new catalogue is in place. */
  reload(): Promise<boolean>;
  /**
   * Validates the config as it would load with some files' text replaced (an edit not yet written),
   * without touching the files or the catalogue; throws the `CONFIG_INVALID` error `reload` would.
   */
  checkConfig(texts: ConfigTexts): Promise<void>;
  /**
   * Does now what a long-running process's first call would otherwise do: records the boot and
   * folds the log's persisted projections (from their snapshots), so that call costs what later ones do.
   */
  warm(): Promise<void>;
  stop(): Promise<string[]>;
}

/**
 * The composition root: finds the config, binds core services and extension points, loads plugins
 * in dependency order, validates the config against the providers they registered, and wires the
 * call pipeline. The event log is opened lazily so read-only commands never touch it.
 */
export async function createKernel(options: KernelOptions): Promise<Kernel> {
  const lifecycle = new Lifecycle();
  const paths = options.inlineConfig
    ? inlinePaths(options)
    : findConfig({ cwd: options.cwd, explicit: options.configPath, globalDir: options.globalDir });
  const scope = createRootScope();
  const bus = new EventBus();
  const checkpoints = new Checkpointer(
    () => scope.resolve(KernelTokens.EventLog),
    paths.stateDir,
    DEFAULT_CHECKPOINT_SETTINGS,
    (message) => process.stderr.write(`warning: ${message}\n`),
    (name) => slots.backends.get(name),
  );
  // Known once the config is loaded; a plugin that opens the log earlier gets the defaults.
  let logSettings = defaultLogSettings(paths);
  let writer: WriterLog | undefined;
  let booted: BootRecord | undefined;
  const logParts = (settings: LoadedConfig['log'], clock?: () => Date) => ({
    paths,
    settings,
    engines: slots.logEngines,
    secret: (key: string) => slots.standing.resolve(key),
    clock,
  });
  const openLog = (): EventLog => {
    // The writer's record names the configuration it runs with, once the registry is known.
    const describe = () => (booted ? { configSha: booted.configSha } : {});
    const opened = openKernelLog({
      ...logParts(logSettings),
      given: options.log,
      lifecycle,
      bus,
      rules: slots.rules,
      checkpoints,
      describe,
    });
    writer = opened.writer;
    return opened.log;
  };
  const slots = bindCore(scope, paths, bus, openLog);
  lifecycle.enter(KernelPhase.Register);
  const boot = planBoot(paths, options);
  let read: ConfigSettings | undefined;
  // The settings are read once the plugins that own their keys are known, before any initialises.
  const readSettings = async (declared: ConfigDeclarations): Promise<Record<string, unknown>> => {
    if (boot.config) return boot.config.settings;
    const load = await import('./config/load.js');
    read = load.readSettings(paths, declared, options.inlineConfig);
    return read.settings;
  };
  let plugins: LoadedPlugins;
  try {
    plugins = await loadPlugins(boot.sources, options.inlinePlugins ?? [], scope, lifecycle, {
      readSettings,
      hostTokens: options.hostTokens,
    });
  } catch (error) {
    await lifecycle.stop();
    throw error;
  }
  lifecycle.enter(KernelPhase.Init);
  let config: LoadedConfig;
  try {
    config = boot.config ?? (await buildProjectConfig(paths, read!, slots, plugins.declared, boot.cache));
    logSettings = config.log;
    if (!options.log) checkLogEngine(config.log, slots.logEngines);
    checkpoints.configure(config.log.checkpoints);
    for (const listener of slots.configListeners.list()) await listener.configLoaded(config);
  } catch (error) {
    await lifecycle.stop();
    throw error;
  }
  for (const provider of slots.providers.values())
    if (provider.stop) lifecycle.onStop(`provider ${provider.type}`, () => provider.stop!());
  for (const engine of slots.engines.values())
    if (engine.stop) lifecycle.onStop(`sandbox engine ${engine.name}`, () => engine.stop!());
  let registry: ToolRegistry;
  try {
    // Secrets a provider resolved at boot (an upstream's env) are scrubbed from its failure too.
    const redact = (text: string, tool: ToolDefinition) =>
      processErrorText(slots.processors.list(), text, { tool, secrets: slots.standing.resolved() });
    registry = new ToolRegistry(
      await collectTools(config, slots.providers, slots.sources, { expand: options.expandTools !== false, redact }),
    );
  } catch (error) {
    await lifecycle.stop();
    throw error;
  }
  const log = (): EventLog => scope.resolve(KernelTokens.EventLog);
  const shadow = new ShadowGate(slots.rules, slots.channels);
  const bootSources = (reload: boolean): BootSources => ({
    tools: () => registry.all(),
    secrets: () => slots.standing.resolved(),
    reload,
    planned: boot.effective,
  });
  const parts = {
    log,
    registry,
    providers: slots.providers,
    processors: slots.processors,
    backends: slots.backends,
    standing: slots.standing,
    boot: new BootRecord(config, boot.recorded(plugins), bootSources(false)),
    shadow,
    bounds: () => config.log.bounds,
  };
  booted = parts.boot;
  const pipeline = new CallPipeline(parts);
  // Re-reads the config files; swaps the catalogue in only when their text changed and it all loads.
  const reload = async (): Promise<boolean> => {
    const { loadConfig } = await import('./config/load.js');
    const next = loadConfig(paths, slots.providers, plugins.declared, options.inlineConfig);
    if (next.sha === config.sha) return false;
    checkpoints.configure(next.log.checkpoints);
    await plugins.reconfigure(next.settings);
    for (const listener of slots.configListeners.list()) await listener.configLoaded(next);
    registry.replace(
      await collectTools(next, slots.providers, slots.sources, { expand: options.expandTools !== false }),
    );
    config = next;
    parts.boot = new BootRecord(next, boot.recorded(plugins), bootSources(true));
    booted = parts.boot;
    return true;
  };
  const checkConfig = async (texts: ConfigTexts): Promise<void> => {
    const { loadConfig } = await import('./config/load.js');
    const next = loadConfig(paths, slots.providers, plugins.declared, options.inlineConfig, texts);
    await collectTools(next, slots.providers, slots.sources, { expand: false });
  };
  const watcher = new ConfigWatcher(() => watchedDirs(paths), reload);
  lifecycle.onStop('config watcher', () => watcher.close());
  slots.catalog.bind(registry, (name) => config.tools.find((tool) => tool.name === name));
  const watchTools = (listener: Parameters<ConfigWatcher['subscribe']>[0]): (() => void) => {
    const unwatch = [watcher.subscribe(listener), slots.catalog.subscribe(listener)];
    return () => unwatch.forEach((stop) => stop());
  };
  slots.gateway.bind({
    call: (request) => pipeline.call(request),
    tools: (sessionId) => registry.catalogueOf(sessionId),
    watchTools,
  });
  if (boot.cache && !boot.partial) {
    const { providers, rules, processors, channels, backends, sources, interfaces, engines } = slots;
    writePlan(
      options.cacheDir!,
      planOf(
        boot.cache.key,
        plugins,
        {
          providers,
          rules,
          processors,
          channels,
          backends,
          listeners: slots.configListeners,
          sources,
          interfaces,
          engines,
        },
        parts.boot.record(),
      ),
    );
  }
  lifecycle.enter(KernelPhase.Ready);
  return {
    paths,
    get config() {
      return config;
    },
    registry,
    pipeline,
    plugins,
    bus,
    providers: slots.providers,
    backends: slots.backends,
    interfaces: slots.interfaces,
    shadow,
    checkpoints,
    log,
    reload,
    checkConfig,
    stop: () => lifecycle.stop(),
    inventory: () => inventoryOf(plugins, slots),
    provided: <T>(token: Token<T>) => plugins.provided.find((entry) => entry.token === token)?.value as T | undefined,
    openLog: (settings, clock) => openConfiguredLog(logParts(settings, clock)),
    warm: async () => {
      const current = log();
      await parts.boot.ensure(current);
      await shadow.historySnapshot(current);
    },
    recover: async () => {
      log();
      await writer?.recover();
    },
  };
}

/**
 * Which plugins to load, and the config when the cache has it. For a command that names the one
 * tool it will call (`need`), a cached config and the plan of the last full boot with these plugins
 * narrow the plugins to those that call needs (`pluginsForCall`; all, with another log engine than LMDB).
 */
function planBoot(
  paths: ProjectPaths,
  options: KernelOptions,
): {
  sources: readonly PluginSource[];
  config?: LoadedConfig;
  cache?: ConfigCache;
  partial: boolean;
  /** What the boot record says this process booted with (see `BootPlan.report`). */
  recorded(loaded: PluginReport): PluginReport;
  /** The effective configuration of the full boot a narrowed start came from (see `BootPlan.effective`). */
  effective?: EffectiveRecord;
} {
  const sources = options.plugins ?? [];
  const asLoaded = (loaded: PluginReport): PluginReport => loaded;
  if (!options.cacheDir || options.inlineConfig) return { sources, partial: false, recorded: asLoaded };
  const cache = new ConfigCache(options.cacheDir, sources);
  const config = cache.read(paths);
  const plan =
    config && options.need && config.log.engine === 'lmdb' ? readPlan(options.cacheDir, cache.key) : undefined;
  const chosen =
    plan && config
      ? pluginsForCall(
          plan,
          sources,
          config.tools.find((tool) => tool.name === options.need!.tool),
          config.overlays.length,
        )
      : undefined;
  // A narrowed start is the installation of the full boot the plan was made by (same plugins, same
  // code) with some plugins deferred: it records that boot, unless one of its own plugins failed.
  const recorded = (loaded: PluginReport): PluginReport =>
    chosen && plan && loaded.failed.length === 0 ? plan.report : loaded;
  return {
    sources: chosen ?? sources,
    config,
    cache,
    partial: chosen !== undefined,
    recorded,
    effective: chosen ? plan?.effective : undefined,
  };
}

/** The tools of the config whose settings were read, validated (and the whole cached, when there is a cache). */
async function buildProjectConfig(
  paths: ProjectPaths,
  read: ConfigSettings,
  slots: ReturnType<typeof bindCore>,
  declared: ConfigDeclarations,
  cache?: ConfigCache,
): Promise<LoadedConfig> {
  // YAML and the validators are loaded only when the files must be read.
  const { buildConfig } = await import('./config/load.js');
  const config = buildConfig(paths, read, slots.providers, declared);
  cache?.write(paths, config);
  return config;
}

/** Where config files live: the main file's directory, the state dir and its tools/ folder. */
function watchedDirs(paths: ProjectPaths): string[] {
  return [dirname(paths.mainFile), paths.stateDir, join(paths.stateDir, 'tools')];
}

function bindCore(scope: Scope, paths: ProjectPaths, bus: EventBus, openLog: () => EventLog) {
  const slots = {
    providers: new KeyedSlot<ToolProvider>('tool type'),
    rules: new OrderedSlot<ShadowRule>(),
    processors: new OrderedSlot<OutputProcessor>(),
    channels: new OrderedSlot<ConfirmChannel>(),
    backends: new KeyedSlot<SecretBackend>('secret backend'),
    interfaces: new KeyedSlot<FactorlyInterface>('interface'),
    sources: new OrderedSlot<ToolSource>(),
    configListeners: new OrderedSlot<ConfigListener>(),
    engines: new KeyedSlot<SandboxEngine>('sandbox engine'),
    gateway: new LateGateway(),
    catalog: new LiveCatalog(),
    logEngines: bindLogEngines(scope),
  };
  const standing = new CallSecretScope(slots.backends);
  scope.registerValue(KernelTokens.EventBus, bus);
  scope.registerValue(KernelTokens.ProjectPaths, paths);
  scope.registerFactory(KernelTokens.EventLog, openLog);
  scope.registerValue(KernelTokens.OpenEventLog, () => scope.resolve(KernelTokens.EventLog));
  scope.registerValue(KernelTokens.ToolProviders, slots.providers);
  scope.registerValue(KernelTokens.ShadowRules, slots.rules);
  scope.registerValue(KernelTokens.OutputProcessors, slots.processors);
  scope.registerValue(KernelTokens.ConfirmChannels, slots.channels);
  scope.registerValue(KernelTokens.SecretBackends, slots.backends);
  scope.registerValue(KernelTokens.Interfaces, slots.interfaces);
  scope.registerValue(KernelTokens.ToolSources, slots.sources);
  scope.registerValue(KernelTokens.ConfigListeners, slots.configListeners);
  scope.registerValue(KernelTokens.StandingSecrets, standing);
  scope.registerValue(KernelTokens.SandboxEngines, slots.engines);
  scope.registerValue(KernelTokens.CallGateway, slots.gateway);
  scope.registerValue(KernelTokens.ToolCatalog, slots.catalog);
  return { ...slots, standing };
}

/** The project's paths when there is a project, else the global config dir's (no config file needed). */
function inlinePaths(options: KernelOptions): ProjectPaths {
  try {
    return findConfig({ cwd: options.cwd, explicit: options.configPath, globalDir: options.globalDir });
  } catch {
    const dir = options.globalDir ?? globalConfigDir();
    return {
      mainFile: join(dir, 'factorly.yaml'),
      stateDir: dir,
      baseDir: options.cwd,
      logPath: join(dir, 'events.lmdb'),
      global: true,
      globalDir: dir,
    };
  }
}
