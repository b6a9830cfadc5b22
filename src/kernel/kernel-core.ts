import { dirname, join } from 'node:path';
import type { EventBus } from '../events/bus.js';
import type { EventLog } from '../events/log.js';
import { findConfig, globalConfigDir, type ProjectPaths } from './config/paths.js';
import type { Scope } from './container.js';
import type {
  ConfigListener,
  ConfirmChannel,
  FactorlyInterface,
  OutputProcessor,
  SecretBackend,
  ShadowRule,
} from './contracts/extensions.js';
import type { SandboxEngine } from './contracts/sandbox.js';
import type { ToolProvider, ToolSource } from './contracts/tool.js';
import type { KernelOptions } from './kernel-api.js';
import { DeferredGateway } from './deferred-gateway.js';
import { KernelPhase, type Lifecycle } from './lifecycle.js';
import { LiveCatalog } from './live-catalog.js';
import { bindLogEngines } from './log-engines.js';
import { CallSecretScope } from './secret-scope.js';
import { KeyedRegistry, OrderedRegistry } from './registries.js';
import { KernelTokens } from './tokens.js';

// The kernel's core services and extension points, bound to their tokens (the composition root, kernel.ts, wires them).

export type CoreSlots = ReturnType<typeof bindCore>;

/** Where config files live: the main file's directory, the state dir and its tools/ folder. */
export function watchedDirs(paths: ProjectPaths): string[] {
  return [dirname(paths.mainFile), paths.stateDir, join(paths.stateDir, 'tools')];
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
    backends: new KeyedRegistry<SecretBackend>('secret backend'),
    interfaces: new KeyedRegistry<FactorlyInterface>('interface'),
    sources: new OrderedRegistry<ToolSource>(),
    configListeners: new OrderedRegistry<ConfigListener>(),
    engines: new KeyedRegistry<SandboxEngine>('sandbox engine'),
    gateway: new DeferredGateway(),
    catalog: new LiveCatalog(),
    logEngines: bindLogEngines(scope),
  };
  const connectionSecrets = new CallSecretScope(registries.backends);
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
  scope.registerValue(KernelTokens.SecretBackends, registries.backends);
  scope.registerValue(KernelTokens.Interfaces, registries.interfaces);
  scope.registerValue(KernelTokens.ToolSources, registries.sources);
  scope.registerValue(KernelTokens.ConfigListeners, registries.configListeners);
  scope.registerValue(KernelTokens.ConnectionSecrets, connectionSecrets);
  scope.registerValue(KernelTokens.SandboxEngines, registries.engines);
  scope.registerValue(KernelTokens.CallGateway, registries.gateway);
  scope.registerValue(KernelTokens.ToolCatalog, registries.catalog);
  return { ...registries, connectionSecrets, log };
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
export function stopWithPlugins(registries: CoreSlots, lifecycle: Lifecycle): (pluginId: string) => void {
  const seen = new Set<unknown>();
  const fresh = <T>(values: T[]): T[] => values.filter((value) => !seen.has(value) && seen.add(value));
  return () => {
    for (const provider of fresh(registries.providers.values()))
      if (provider.stop) lifecycle.onStop(`provider ${provider.type}`, () => provider.stop!());
    for (const engine of fresh(registries.engines.values()))
      if (engine.stop) lifecycle.onStop(`sandbox engine ${engine.name}`, () => engine.stop!());
  };
}
