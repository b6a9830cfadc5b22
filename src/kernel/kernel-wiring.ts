import type { LoadedPlugins } from '../plugins/host.js';
import { inventoryOf } from '../plugins/inventory.js';
import type { Token } from '../base/token.js';
import { BootRecord } from './boot-record.js';
import { planOf, writePlan, type planBoot } from './boot-plan.js';
import { CallPipeline, type PipelineParts } from './call-pipeline.js';
import { collectTools } from './collect-tools.js';
import type { ConfigTexts, LoadedConfig } from '../config/load.js';
import { ConfigWatcher } from '../config/config-watch.js';
import { listedThrough } from '../contracts/gateway.js';
import type { Kernel } from './kernel-api.js';
import { watchedDirs, type Discovered } from './kernel-core.js';
import { openConfiguredLog } from './log-engines.js';
import type { ToolRegistry } from './registry.js';
import { ShadowGate } from './shadow-gate.js';

// The composition root's last steps (kernel.ts runs them): the pipeline over the loaded tools, the
// reload, the gateway and catalogue plugins received at init, the boot plan, the kernel handed back.

/** What the boot steps loaded: the plan, the plugins, the config they validated, the tools it serves. */
export interface Loaded extends Discovered {
  plan: ReturnType<typeof planBoot>;
  plugins: LoadedPlugins;
  /** The config in force: a reload that loads replaces it. */
  config: LoadedConfig;
  registry: ToolRegistry;
}

/** The kernel as wired: what was loaded, the gate, and the pipeline (whose `parts.boot` a reload replaces). */
export interface Wired extends Loaded {
  shadow: ShadowGate;
  parts: PipelineParts;
  pipeline: CallPipeline;
}

/** The shadow gate, the boot record and the call pipeline over the collected tools. */
export function wirePipeline(loaded: Loaded): Wired {
  const { registries, registry } = loaded;
  const shadow = new ShadowGate(registries.rules, registries.askable);
  const parts: PipelineParts = {
    log: registries.log,
    registry,
    providers: registries.providers,
    processors: registries.processors,
    backends: registries.backends,
    connectionSecrets: registries.connectionSecrets,
    boot: bootRecordOf(loaded, loaded.config, false),
    shadow,
    filters: registries.filters,
    bounds: () => wired.config.log.bounds,
    lifecycle: loaded.lifecycle,
  };
  loaded.logState.booted = parts.boot;
  const wired: Wired = { ...loaded, shadow, parts, pipeline: new CallPipeline(parts) };
  return wired;
}

/** What this process booted with under `config`; a reloaded config is recorded even when another process recorded it last. */
function bootRecordOf(loaded: Loaded, config: LoadedConfig, reload: boolean): BootRecord {
  const { plan, plugins, registry, registries } = loaded;
  return new BootRecord(config, plan.recorded(plugins), {
    tools: () => registry.all(),
    secrets: () => registries.connectionSecrets.resolved(),
    reload,
    planned: plan.effective,
  });
}

/** Re-reads the config files; swaps the catalogue in only when their text changed and it all loads. */
export function reloader(wired: Wired): () => Promise<boolean> {
  const { paths, options, registries, plugins } = wired;
  return async () => {
    const { loadConfig } = await import('../config/load.js');
    const next = loadConfig(paths, registries.providers, plugins.declared, options.inlineConfig);
    if (next.sha === wired.config.sha) return false;
    wired.checkpoints.configure(next.log.checkpoints);
    await plugins.reconfigure(next.settings);
    for (const listener of registries.configListeners.list()) await listener.configLoaded(next);
    wired.registry.replace(
      await collectTools(next, registries.providers, registries.sources, { expand: options.expandTools !== false }),
    );
    wired.config = next;
    wired.parts.boot = bootRecordOf(wired, next, true);
    wired.logState.booted = wired.parts.boot;
    return true;
  };
}

/** Validates the config as it would load with `texts` in place of some files, touching nothing. */
function configChecker({ paths, options, registries, plugins }: Wired): (texts: ConfigTexts) => Promise<void> {
  return async (texts) => {
    const { loadConfig } = await import('../config/load.js');
    const next = loadConfig(paths, registries.providers, plugins.declared, options.inlineConfig, texts);
    await collectTools(next, registries.providers, registries.sources, { expand: false });
  };
}

/**
 * Binds what plugins received at init to what now serves: the live catalogue to the registry, the
 * gateway to the pipeline; a watcher of the config files reloads for whoever watches the tools.
 */
export function bindGateway(wired: Wired, reload: () => Promise<boolean>): void {
  const { registries, registry } = wired;
  const watcher = new ConfigWatcher(
    () => watchedDirs(wired.paths),
    reload,
    () => wired.config.included,
  );
  wired.lifecycle.onStop('config watcher', () => watcher.close());
  registries.catalog.bind(registry, (name) => wired.config.tools.find((tool) => tool.name === name));
  const watchTools = (listener: Parameters<ConfigWatcher['subscribe']>[0]): (() => void) => {
    const unwatch = [watcher.subscribe(listener), registries.catalog.subscribe(listener)];
    return () => unwatch.forEach((stop) => stop());
  };
  registries.gateway.bind({
    call: (request) => wired.pipeline.call(request),
    tools: (sessionId, options) =>
      listedThrough(registries.filters.list(), registry.catalogueOf(sessionId), sessionId, options),
    watchTools,
  });
}

/** A full boot with a cache dir leaves its plan, which narrows the next start that needs one tool. */
export function writeBootPlan({ plan, plugins, registries, options, parts }: Wired): void {
  if (!plan.cache || plan.partial) return;
  const { providers, rules, processors, channels, personChannels, backends, sources, interfaces, engines } = registries;
  const planned = { providers, rules, processors, channels, personChannels, backends, sources, interfaces, engines };
  const record = parts.boot.record();
  writePlan(
    options.cacheDir!,
    planOf(plan.cache.key, plugins, { ...planned, listeners: registries.configListeners }, record),
  );
}

/** The kernel as its callers see it (`Kernel`, kernel-api.ts). */
export function kernelApi(wired: Wired, reload: () => Promise<boolean>): Kernel {
  const { registries, plugins, shadow, parts } = wired;
  const { log } = registries;
  return {
    paths: wired.paths,
    get config() {
      return wired.config;
    },
    registry: wired.registry,
    pipeline: wired.pipeline,
    plugins,
    bus: wired.bus,
    providers: registries.providers,
    backends: registries.backends,
    interfaces: registries.interfaces,
    shadow,
    checkpoints: wired.checkpoints,
    log,
    reload,
    reconfigurePlugins: (settings) => plugins.reconfigure(settings),
    checkConfig: configChecker(wired),
    stop: () => wired.lifecycle.stop(),
    inventory: () => inventoryOf(plugins, registries),
    provided: <T>(token: Token<T>) => plugins.provided.find((entry) => entry.token === token)?.value as T | undefined,
    openLog: (settings, use = {}) => openConfiguredLog({ ...wired.logParts(settings, use.clock), ...use }),
    warm: async () => {
      const current = log();
      await parts.boot.ensure(current);
      await shadow.historySnapshot(current);
    },
    recover: async () => {
      log();
      await wired.logState.writer?.recover();
    },
  };
}
