import { mkdirSync } from 'node:fs';
import { FactorlyError, messageOf } from './base/errors.js';
import { dirname, join } from 'node:path';
import { EventBus } from '../events/bus.js';
import { LmdbEventLog } from '../events/lmdb-log.js';
import type { EventLog } from '../events/log.js';
import { PublishingEventLog } from '../events/publishing-log.js';
import { WriterLog } from '../events/writer-log.js';
import { loadPlugins, type LoadablePlugin, type PluginReport } from '../plugins/host.js';
import type { PluginSource } from '../plugins/manifest.js';
import { BootRecord, type BootSources } from './boot-record.js';
import { Checkpointer } from './checkpointer.js';
import { parseCheckpointSettings } from './config/checkpoint-settings.js';
import { CallPipeline } from './call-pipeline.js';
import { loadConfig, type InlineConfig, type LoadedConfig } from './config/load.js';
import { findConfig, globalConfigDir, type ProjectPaths } from './config/paths.js';
import { createRootScope, type Scope } from './container.js';
import type { ConfigListener, ConfirmChannel, FactorlyInterface, OutputProcessor, SecretBackend, ShadowRule } from './contracts/extensions.js';
import type { ToolDefinition, ToolProvider, ToolSource } from './contracts/tool.js';
import type { SandboxEngine } from './contracts/sandbox.js';
import type { McpPassthrough } from './contracts/upstream.js';
import { collectTools } from './collect-tools.js';
import { ConfigWatcher } from './config-watch.js';
import { LateGateway } from './late-gateway.js';
import { processErrorText } from './process-output.js';
import { KernelPhase, Lifecycle } from './lifecycle.js';
import { ToolRegistry } from './registry.js';
import { CallSecretScope } from './secret-scope.js';
import { ShadowGate } from './shadow-gate.js';
import { KeyedSlot, OrderedSlot } from './slots.js';
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
   * `vault set`, which must work before the secrets an upstream server needs exist.
   */
  expandTools?: boolean;
  /** Use this log instead of the project's LMDB file (tests, dry runs). */
  log?: EventLog;
  /**
   * Tools described in text instead of the project's config files (`wrap`). The project, when there
   * is one, still holds the event log; without one the global config dir does.
   */
  inlineConfig?: InlineConfig;
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
  /** Installed secret backends by name (`vault`, `env`, configured CLI-backed ones). */
  readonly backends: KeyedSlot<SecretBackend>;
  /** Ways in (`mcp`, `ui`) by name, as plugins registered them. */
  readonly interfaces: KeyedSlot<FactorlyInterface>;
  /** The shadow rules' gate (its live rule state is compared with replays in tests). */
  readonly shadow: ShadowGate;
  /** Signs checkpoints of the log's Merkle tree (every N events, on a timer while serving, at stop). */
  readonly checkpoints: Checkpointer;
  /** The event log, opened on first use. */
  log(): EventLog;
  /** Opens the log and closes what writers that have ended left open (their calls: interrupted). */
  recover(): Promise<void>;
  /** Re-reads the config files; true when they changed and the new catalogue is in place. */
  reload(): Promise<boolean>;
  stop(): Promise<string[]>;
}

/**
 * The composition root: finds the config, binds core services and extension points, loads plugins
 * in dependency order, validates the config against the providers they registered, and wires the
 * call pipeline. The event log is opened lazily so read-only commands never touch it.
 */
export async function createKernel(options: KernelOptions): Promise<Kernel> {
  const lifecycle = new Lifecycle();
  const paths = options.inlineConfig ? inlinePaths(options) : findConfig({ cwd: options.cwd, explicit: options.configPath, globalDir: options.globalDir });
  const scope = createRootScope();
  const bus = new EventBus();
  const checkpoints = new Checkpointer(
    () => scope.resolve(KernelTokens.EventLog), paths.stateDir, parseCheckpointSettings(undefined, paths.baseDir),
    (message) => process.stderr.write(`warning: ${message}\n`), () => slots.backends.get('vault'),
  );
  let writer: WriterLog | undefined;
  let boot: BootRecord | undefined;
  const openLog = (): EventLog => {
    // The writer's record names the configuration it runs with, once the registry is known.
    writer = new WriterLog(options.log ?? openProjectLog(paths), undefined, () => (boot ? { configSha: boot.configSha } : {}));
    const own = writer;
    lifecycle.onStop('event log', () => own.close());
    // Stop hooks run in reverse: the last checkpoint is signed before the log closes.
    lifecycle.onStop('checkpoints', () => checkpoints.stop());
    bus.onAny((event) => checkpoints.observe(event));
    return new PublishingEventLog(own, bus);
  };
  const slots = bindCore(scope, paths, bus, openLog);
  lifecycle.enter(KernelPhase.Register);
  const plugins = await loadPlugins(options.plugins ?? [], options.inlinePlugins ?? [], scope, lifecycle);
  lifecycle.enter(KernelPhase.Init);
  let config: LoadedConfig;
  try {
    config = loadConfig(paths, slots.providers, slots.processors.list(), options.inlineConfig);
    checkpoints.configure(parseCheckpointSettings(config.settings.log, paths.baseDir));
    for (const listener of slots.configListeners.list()) await listener.configLoaded(config);
  } catch (error) {
    await lifecycle.stop();
    throw error;
  }
  for (const provider of slots.providers.values()) if (provider.stop) lifecycle.onStop(`provider ${provider.type}`, () => provider.stop!());
  for (const engine of slots.engines.values()) if (engine.stop) lifecycle.onStop(`sandbox engine ${engine.name}`, () => engine.stop!());
  let registry: ToolRegistry;
  try {
    // Secrets a provider resolved at boot (an upstream's env) are scrubbed from its failure too.
    const redact = (text: string, tool: ToolDefinition) => processErrorText(slots.processors.list(), text, { tool, secrets: slots.standing.resolved() });
    registry = new ToolRegistry(await collectTools(config, slots.providers, slots.sources, { expand: options.expandTools !== false, redact }));
  } catch (error) {
    await lifecycle.stop();
    throw error;
  }
  const log = (): EventLog => scope.resolve(KernelTokens.EventLog);
  const shadow = new ShadowGate(slots.rules, slots.channels);
  const parts = {
    log, registry, providers: slots.providers, processors: slots.processors, backends: slots.backends, standing: slots.standing,
    boot: new BootRecord(config, plugins, bootSources(registry, slots.standing, false)), shadow,
  };
  boot = parts.boot;
  const pipeline = new CallPipeline(parts);
  // Re-reads the config files; swaps the catalogue in only when their text changed and it all loads.
  const reload = async (): Promise<boolean> => {
    const next = loadConfig(paths, slots.providers, slots.processors.list(), options.inlineConfig);
    if (next.sha === config.sha) return false;
    checkpoints.configure(parseCheckpointSettings(next.settings.log, paths.baseDir));
    for (const listener of slots.configListeners.list()) await listener.configLoaded(next);
    registry.replace(await collectTools(next, slots.providers, slots.sources, { expand: options.expandTools !== false }));
    config = next;
    parts.boot = new BootRecord(next, plugins, bootSources(registry, slots.standing, true));
    boot = parts.boot;
    return true;
  };
  const watcher = new ConfigWatcher(() => watchedDirs(paths), reload);
  lifecycle.onStop('config watcher', () => watcher.close());
  slots.gateway.bind({ call: (request) => pipeline.call(request), tools: () => registry.all(), watchTools: (listener) => watcher.subscribe(listener) });
  lifecycle.enter(KernelPhase.Ready);
  return {
    paths, get config() { return config; }, registry, pipeline, plugins, bus, providers: slots.providers, backends: slots.backends,
    interfaces: slots.interfaces, shadow, checkpoints, log, reload, stop: () => lifecycle.stop(),
    recover: async () => {
      log();
      await writer?.recover();
    },
  };
}

function bootSources(registry: ToolRegistry, standing: CallSecretScope, reload: boolean): BootSources {
  return { tools: () => registry.all(), secrets: () => standing.resolved(), reload };
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
    passthroughs: new KeyedSlot<McpPassthrough>('mcp pass-through'),
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
  scope.registerValue(KernelTokens.McpPassthroughs, slots.passthroughs);
  return { ...slots, standing };
}

/** The project's paths when there is a project, else the global config dir's (no config file needed). */
function inlinePaths(options: KernelOptions): ProjectPaths {
  try {
    return findConfig({ cwd: options.cwd, explicit: options.configPath, globalDir: options.globalDir });
  } catch {
    const dir = options.globalDir ?? globalConfigDir();
    return { mainFile: join(dir, 'factorly.yaml'), stateDir: dir, baseDir: options.cwd, logPath: join(dir, 'events.lmdb'), global: true, globalDir: dir };
  }
}

function openProjectLog(paths: ProjectPaths): EventLog {
  try {
    mkdirSync(paths.stateDir, { recursive: true });
    return new LmdbEventLog({ path: paths.logPath });
  } catch (error) {
    throw new FactorlyError('LOG_WRITE_FAILED', `cannot open the event log ${paths.logPath} for writing: ${messageOf(error)}`, { cause: error });
  }
}
