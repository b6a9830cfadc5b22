import { dirname, join } from 'node:path';
import { EventBus } from '../events/bus.js';
import type { EventLog } from '../events/log.js';
import type { WriterLog } from '../events/writer-log.js';
import { messageOf } from '../base/errors.js';
import { writeWarning } from '../base/printable.js';
import type { BootRecord } from './boot-record.js';
import { Checkpointer } from '../evidence/checkpointer.js';
import { DEFAULT_CHECKPOINT_SETTINGS } from '../config/checkpoint-settings.js';
import type { LogSettings } from '../config/log-settings.js';
import { findConfig, globalConfigDir, type ProjectPaths } from '../config/paths.js';
import { blueprintsDir } from '../config/files.js';
import { createRootScope, type Scope } from './container.js';
import type {
  ConfigListener,
  ConfirmChannel,
  FactorlyInterface,
  OutputProcessor,
  SecretBackend,
  ShadowRule,
} from '../contracts/extensions.js';
import type { SandboxEngine } from '../contracts/sandbox.js';
import type { ToolProvider, ToolSource } from '../contracts/tool.js';
import type { CatalogFilter } from '../contracts/gateway.js';
import type { AskPerson, PersonChannel } from '../contracts/person.js';
import { personChannels } from '../contracts/person-race.js';
import { askQuestion } from '../contracts/person-question.js';
import { standingApprovals } from '../events/projections/standing.js';
import { CallContext } from './call-context.js';
import { Redactor } from './redact.js';
import type { KernelOptions } from './kernel-api.js';
import { DeferredGateway } from './deferred-gateway.js';
import { KernelPhase, Lifecycle } from './lifecycle.js';
import { LiveCatalog } from './live-catalog.js';
import { openKernelLog } from './kernel-log.js';
import { defaultLogSettings } from '../config/log-settings.js';
import { bindLogEngines, type ConfiguredLogParts } from './log-engines.js';
import { CallSecretScope } from './secret-scope.js';
import { KeyedRegistry, OrderedRegistry } from './registries.js';
import { KernelTokens } from './tokens.js';

// Discover, the composition root's first step (kernel.ts runs them all): the kernel's core services and
// extension points bound to their tokens, the bus, the checkpointer and the log opened on first use.

export type CoreRegistries = ReturnType<typeof bindCore>;

/** What the kernel tells the person running it that is not an error: on stderr, escaped (it may quote a plugin or an upstream). */
const warn = writeWarning;

/** The event log before and after it is first opened. */
export interface KernelLogState {
  /** Known once the config is loaded; a plugin that opens the log earlier gets the defaults. */
  settings: LogSettings;
  /** Set when the log is opened: recovered on `recover()`, closed at stop. */
  writer?: WriterLog;
  /** The boot record of the config in force, whose digest the writer's record names. */
  booted?: BootRecord;
}

/** What Discover makes: the project's paths, the root scope with every kernel token bound, the lazily opened log. */
export interface Discovered {
  options: KernelOptions;
  lifecycle: Lifecycle;
  paths: ProjectPaths;
  scope: Scope;
  bus: EventBus;
  checkpoints: Checkpointer;
  registries: CoreRegistries;
  logState: KernelLogState;
  /** What opening a log as `settings` describe it takes (the project's, or a bare one to copy events into). */
  logParts(settings: LogSettings, clock?: () => Date): ConfiguredLogParts;
}

/**
 * Discover: finds the config, makes the root scope and binds the core services and extension points
 * in it. The event log is opened lazily so read-only commands never touch it.
 */
export function discover(options: KernelOptions): Discovered {
  const lifecycle = new Lifecycle();
  const paths = options.inlineConfig
    ? inlinePaths(options)
    : findConfig({ cwd: options.cwd, explicit: options.configPath, globalDir: options.globalDir });
  const scope = createRootScope();
  const bus = reportingBus();
  const checkpoints = new Checkpointer(
    () => scope.resolve(KernelTokens.EventLog),
    paths.stateDir,
    DEFAULT_CHECKPOINT_SETTINGS,
    warn,
    (name) => registries.backends.get(name),
  );
  const logState: KernelLogState = { settings: defaultLogSettings(paths) };
  const logParts = (settings: LogSettings, clock?: () => Date): ConfiguredLogParts => ({
    paths,
    settings,
    engines: registries.logEngines,
    secret: (key: string) => registries.connectionSecrets.resolve(key),
    clock,
  });
  const openLog = (): EventLog => {
    // The writer's record names the configuration it runs with, once the registry is known, and the
    // key its checkpoints are signed with, so they verify on every node of a shared log.
    const describe = async () => {
      const verifierKey = await checkpoints.announcedKey();
      return {
        ...(logState.booted ? { configSha: logState.booted.configSha } : {}),
        ...(verifierKey ? { verifierKey } : {}),
      };
    };
    const opened = openKernelLog({
      ...logParts(logState.settings),
      given: options.log,
      bus,
      rules: registries.rules,
      checkpoints,
      describe,
    });
    logState.writer = opened.writer;
    return opened.log;
  };
  const registries = bindCore(scope, paths, bus, openLog, lifecycle);
  // The log is the first thing started (whenever it is first opened), so it stops last: after every
  // plugin's stop hooks, which may still append; its last checkpoint is signed just before it closes.
  lifecycle.onStop('event log', () => logState.writer?.close());
  lifecycle.onStop('checkpoints', () => checkpoints.stop());
  return { options, lifecycle, paths, scope, bus, checkpoints, registries, logState, logParts };
}

/** The kernel's bus. A listener's failure never breaks the append that published the event, and is never silent. */
function reportingBus(): EventBus {
  const bus = new EventBus();
  bus.onListenerFailed((error, event) =>
    warn(
      `a listener of ${event.type} events failed on seq ${event.seq} (the event is recorded; the listener missed it): ${messageOf(error)}`,
    ),
  );
  return bus;
}

/** Where config files live: the main file's directory, the state dir, its tools/ and blueprints/ folders. */
export function watchedDirs(paths: ProjectPaths): string[] {
  return [dirname(paths.mainFile), paths.stateDir, join(paths.stateDir, 'tools'), blueprintsDir(paths)];
}

/**
 * Binds the core services and extension points to their tokens. `log` hands out the event log (opened
 * on first use by `openLog`), and only until the kernel has stopped.
 */
export function bindCore(
  scope: Scope,
  paths: ProjectPaths,
  bus: EventBus,
  openLog: () => EventLog,
  lifecycle: Lifecycle,
) {
  const registries = {
    providers: new KeyedRegistry<ToolProvider>('tool type'),
    rules: new OrderedRegistry<ShadowRule>(),
    processors: new OrderedRegistry<OutputProcessor>(),
    channels: new OrderedRegistry<ConfirmChannel>(),
    personChannels: new OrderedRegistry<PersonChannel>(),
    backends: new KeyedRegistry<SecretBackend>('secret backend'),
    interfaces: new KeyedRegistry<FactorlyInterface>('interface'),
    sources: new OrderedRegistry<ToolSource>(),
    configListeners: new OrderedRegistry<ConfigListener>(),
    engines: new KeyedRegistry<SandboxEngine>('sandbox engine'),
    gateway: new DeferredGateway(),
    catalog: new LiveCatalog(),
    filters: new OrderedRegistry<CatalogFilter>(),
    logEngines: bindLogEngines(scope),
  };
  const connectionSecrets = new CallSecretScope(registries.backends);
  // Every way to reach a person, in order: the person channels and the confirm-only ones (plugin API 1).
  const askable = { list: () => personChannels(registries.personChannels.list(), registries.channels.list()) };
  scope.registerValue(KernelTokens.EventBus, bus);
  scope.registerValue(KernelTokens.ProjectPaths, paths);
  scope.registerFactory(KernelTokens.EventLog, openLog);
  const log = (): EventLog => {
    lifecycle.require('using the event log', KernelPhase.Discover);
    return scope.resolve(KernelTokens.EventLog);
  };
  scope.registerValue(KernelTokens.LazyEventLog, log);
  scope.registerValue(KernelTokens.ToolProviders, registries.providers);
  scope.registerValue(KernelTokens.ShadowRules, registries.rules);
  scope.registerValue(KernelTokens.OutputProcessors, registries.processors);
  scope.registerValue(KernelTokens.ConfirmChannels, registries.channels);
  scope.registerValue(KernelTokens.PersonChannels, registries.personChannels);
  scope.registerValue(KernelTokens.AskPerson, askPersonService(registries.processors, askable, log));
  scope.registerValue(KernelTokens.StandingApprovals, standingApprovals);
  scope.registerValue(KernelTokens.SecretBackends, registries.backends);
  scope.registerValue(KernelTokens.Interfaces, registries.interfaces);
  scope.registerValue(KernelTokens.ToolSources, registries.sources);
  scope.registerValue(KernelTokens.ConfigListeners, registries.configListeners);
  scope.registerValue(KernelTokens.ConnectionSecrets, connectionSecrets);
  scope.registerValue(KernelTokens.SandboxEngines, registries.engines);
  scope.registerValue(KernelTokens.CallGateway, registries.gateway);
  scope.registerValue(KernelTokens.ToolCatalog, registries.catalog);
  scope.registerValue(KernelTokens.CatalogFilters, registries.filters);
  return { ...registries, connectionSecrets, log, askable };
}

/** `KernelTokens.AskPerson`: a question on behalf of a call, scrubbed of its call tree's secrets like its events. */
function askPersonService(
  processors: OrderedRegistry<OutputProcessor>,
  channels: { list(): PersonChannel[] },
  log: () => EventLog,
): AskPerson {
  return {
    async ask(call, question, options) {
      const context = CallContext.adopt(call.context);
      const redactor = new Redactor(
        () => processors.list(),
        () => context.scrubList(),
        call.tool,
      );
      const parts = { log: log(), channels: channels.list(), scrub: redactor.value.bind(redactor) };
      return askQuestion(parts, call, question, options);
    },
  };
}

/** The project's paths when there is a project, else the global config dir's (no config file needed). */
export function inlinePaths(options: KernelOptions): ProjectPaths {
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

/**
 * Registers, after each plugin's init, the stop hooks of the providers and engines it added, so
 * each stops with the plugin that started it: in reverse start order, before the plugins it
 * required and after the ones that required it.
 */
export function stopWithPlugins(registries: CoreRegistries, lifecycle: Lifecycle): (pluginId: string) => void {
  const seen = new Set<unknown>();
  const fresh = <T>(values: T[]): T[] => values.filter((value) => !seen.has(value) && seen.add(value));
  return () => {
    for (const provider of fresh(registries.providers.values()))
      if (provider.stop) lifecycle.onStop(`provider ${provider.type}`, () => provider.stop!());
    for (const engine of fresh(registries.engines.values()))
      if (engine.stop) lifecycle.onStop(`sandbox engine ${engine.name}`, () => engine.stop!());
  };
}
