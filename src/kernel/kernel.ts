import { EventBus } from '../events/bus.js';
import type { EventLog } from '../events/log.js';
import type { WriterLog } from '../events/writer-log.js';
import { loadPlugins, type LoadedPlugins } from '../plugins/host.js';
import { inventoryOf } from '../plugins/inventory.js';
import { messageOf } from '../base/errors.js';
import type { Token } from '../base/token.js';
import { BootRecord, type BootSources } from './boot-record.js';
import { planBoot, planOf, writePlan } from './boot-plan.js';
import { CallPipeline } from './call-pipeline.js';
import { Checkpointer } from './checkpointer.js';
import { DEFAULT_CHECKPOINT_SETTINGS } from './config/checkpoint-settings.js';
import type { ConfigCache } from './config/config-cache.js';
import type { ConfigDeclarations } from './config/declared.js';
import type { ConfigSettings, ConfigTexts, LoadedConfig } from './config/load.js';
import { findConfig, type ProjectPaths } from './config/paths.js';
import { createRootScope } from './container.js';
import type { ToolDefinition } from './contracts/tool.js';
import { collectTools } from './collect-tools.js';
import { ConfigWatcher } from './config-watch.js';
import type { Kernel, KernelOptions } from './kernel-api.js';
import { bindCore, inlinePaths, stopWithPlugins, watchedDirs, type CoreSlots } from './kernel-core.js';
import { openKernelLog } from './kernel-log.js';
import { KernelPhase, Lifecycle } from './lifecycle.js';
import { checkLogEngine, defaultLogSettings, openConfiguredLog } from './log-engines.js';
import { processErrorText } from './process-output.js';
import { ToolRegistry } from './registry.js';
import { ShadowGate } from './shadow-gate.js';
import { KernelTokens } from './tokens.js';

export type { Kernel, KernelOptions } from './kernel-api.js';

/** What the kernel tells the person running it that is not an error: written to stderr. */
const warn = (message: string): void => void process.stderr.write(`warning: ${message}\n`);

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
  // A listener's failure never breaks the append that published the event, and is never silent.
  bus.onListenerFailed((error, event) =>
    warn(
      `a listener of ${event.type} events failed on seq ${event.seq} (the event is recorded; the listener missed it): ${messageOf(error)}`,
    ),
  );
  const checkpoints = new Checkpointer(
    () => scope.resolve(KernelTokens.EventLog),
    paths.stateDir,
    DEFAULT_CHECKPOINT_SETTINGS,
    warn,
    (name) => registries.backends.get(name),
  );
  // Known once the config is loaded; a plugin that opens the log earlier gets the defaults.
  let logSettings = defaultLogSettings(paths);
  let writer: WriterLog | undefined;
  let booted: BootRecord | undefined;
  const logParts = (settings: LoadedConfig['log'], clock?: () => Date) => ({
    paths,
    settings,
    engines: registries.logEngines,
    secret: (key: string) => registries.connectionSecrets.resolve(key),
    clock,
  });
  const openLog = (): EventLog => {
    // The writer's record names the configuration it runs with, once the registry is known.
    const describe = () => (booted ? { configSha: booted.configSha } : {});
    const opened = openKernelLog({
      ...logParts(logSettings),
      given: options.log,
      bus,
      rules: registries.rules,
      checkpoints,
      describe,
    });
    writer = opened.writer;
    return opened.log;
  };
  const registries = bindCore(scope, paths, bus, openLog, lifecycle);
  // The log is the first thing started (whenever it is first opened), so it stops last: after every
  // plugin's stop hooks, which may still append; its last checkpoint is signed just before it closes.
  lifecycle.onStop('event log', () => writer?.close());
  lifecycle.onStop('checkpoints', () => checkpoints.stop());
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
      started: stopWithPlugins(registries, lifecycle),
    });
  } catch (error) {
    await lifecycle.stop();
    throw error;
  }
  let config: LoadedConfig;
  try {
    config = boot.config ?? (await buildProjectConfig(paths, read!, registries, plugins.declared, boot.cache));
    logSettings = config.log;
    if (!options.log) checkLogEngine(config.log, registries.logEngines);
    checkpoints.configure(config.log.checkpoints);
    for (const listener of registries.configListeners.list()) await listener.configLoaded(config);
  } catch (error) {
    await lifecycle.stop();
    throw error;
  }
  let registry: ToolRegistry;
  try {
    // Secrets a provider resolved at boot (an upstream's env) are scrubbed from its failure too.
    const redact = (text: string, tool: ToolDefinition) =>
      processErrorText(registries.processors.list(), text, { tool, secrets: registries.connectionSecrets.resolved() });
    registry = new ToolRegistry(
      await collectTools(config, registries.providers, registries.sources, {
        expand: options.expandTools !== false,
        redact,
      }),
    );
  } catch (error) {
    await lifecycle.stop();
    throw error;
  }
  const { log } = registries;
  const shadow = new ShadowGate(registries.rules, registries.channels);
  const bootSources = (reload: boolean): BootSources => ({
    tools: () => registry.all(),
    secrets: () => registries.connectionSecrets.resolved(),
    reload,
    planned: boot.effective,
  });
  const parts = {
    log,
    registry,
    providers: registries.providers,
    processors: registries.processors,
    backends: registries.backends,
    connectionSecrets: registries.connectionSecrets,
    boot: new BootRecord(config, boot.recorded(plugins), bootSources(false)),
    shadow,
    bounds: () => config.log.bounds,
    lifecycle,
  };
  booted = parts.boot;
  const pipeline = new CallPipeline(parts);
  // Re-reads the config files; swaps the catalogue in only when their text changed and it all loads.
  const reload = async (): Promise<boolean> => {
    const { loadConfig } = await import('./config/load.js');
    const next = loadConfig(paths, registries.providers, plugins.declared, options.inlineConfig);
    if (next.sha === config.sha) return false;
    checkpoints.configure(next.log.checkpoints);
    await plugins.reconfigure(next.settings);
    for (const listener of registries.configListeners.list()) await listener.configLoaded(next);
    registry.replace(
      await collectTools(next, registries.providers, registries.sources, { expand: options.expandTools !== false }),
    );
    config = next;
    parts.boot = new BootRecord(next, boot.recorded(plugins), bootSources(true));
    booted = parts.boot;
    return true;
  };
  const checkConfig = async (texts: ConfigTexts): Promise<void> => {
    const { loadConfig } = await import('./config/load.js');
    const next = loadConfig(paths, registries.providers, plugins.declared, options.inlineConfig, texts);
    await collectTools(next, registries.providers, registries.sources, { expand: false });
  };
  const watcher = new ConfigWatcher(() => watchedDirs(paths), reload);
  lifecycle.onStop('config watcher', () => watcher.close());
  registries.catalog.bind(registry, (name) => config.tools.find((tool) => tool.name === name));
  const watchTools = (listener: Parameters<ConfigWatcher['subscribe']>[0]): (() => void) => {
    const unwatch = [watcher.subscribe(listener), registries.catalog.subscribe(listener)];
    return () => unwatch.forEach((stop) => stop());
  };
  registries.gateway.bind({
    call: (request) => pipeline.call(request),
    tools: (sessionId) => registry.catalogueOf(sessionId),
    watchTools,
  });
  if (boot.cache && !boot.partial) {
    const { providers, rules, processors, channels, backends, sources, interfaces, engines } = registries;
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
          listeners: registries.configListeners,
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
    providers: registries.providers,
    backends: registries.backends,
    interfaces: registries.interfaces,
    shadow,
    checkpoints,
    log,
    reload,
    checkConfig,
    stop: () => lifecycle.stop(),
    inventory: () => inventoryOf(plugins, registries),
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

/** The tools of the config whose settings were read, validated (and the whole cached, when there is a cache). */
async function buildProjectConfig(
  paths: ProjectPaths,
  read: ConfigSettings,
  registries: CoreSlots,
  declared: ConfigDeclarations,
  cache?: ConfigCache,
): Promise<LoadedConfig> {
  // YAML and the validators are loaded only when the files must be read.
  const { buildConfig } = await import('./config/load.js');
  const config = buildConfig(paths, read, registries.providers, declared);
  cache?.write(paths, config);
  return config;
}
