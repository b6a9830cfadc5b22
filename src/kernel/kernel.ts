import { loadPlugins, type LoadedPlugins } from '../plugins/host.js';
import { planBoot } from './boot-plan.js';
import type { ConfigCache } from '../config/config-cache.js';
import type { ConfigDeclarations } from '../config/declared.js';
import type { ConfigSettings, LoadedConfig } from '../config/load.js';
import type { ProjectPaths } from '../config/paths.js';
import type { ToolDefinition } from '../contracts/tool.js';
import { collectTools } from './collect-tools.js';
import type { Kernel, KernelOptions } from './kernel-api.js';
import { discover, stopWithPlugins, type CoreRegistries, type Discovered } from './kernel-core.js';
import { bindGateway, kernelApi, reloader, wirePipeline, writeBootPlan, type Loaded } from './kernel-wiring.js';
import { KernelPhase, type Lifecycle } from './lifecycle.js';
import { checkLogEngine } from '../contracts/log-engine.js';
import { processErrorText } from './process-output.js';
import { ToolRegistry } from './registry.js';

export type { Kernel, KernelOptions } from './kernel-api.js';

type BootPlanned = Loaded['plan'];

/**
 * The composition root: finds the config, binds core services and extension points, loads plugins
 * in dependency order, validates the config against the providers they registered, and wires the
 * call pipeline. The event log is opened lazily so read-only commands never touch it.
 */
export async function createKernel(options: KernelOptions): Promise<Kernel> {
  const discovered = discover(options);
  const plan = planBoot(discovered.paths, options);
  const loaded = await stopOnFailure(discovered.lifecycle, async (): Promise<Loaded> => {
    const { plugins, read } = await loadKernelPlugins(discovered, plan);
    const config = await loadKernelConfig(discovered, plan, plugins, read);
    const registry = await collectKernelTools(discovered, config);
    expectCall(discovered, registry);
    return { ...discovered, plan, plugins, config, registry };
  });
  const wired = wirePipeline(loaded);
  const reload = reloader(wired);
  bindGateway(wired, reload);
  writeBootPlan(wired);
  discovered.lifecycle.enter(KernelPhase.Ready);
  return kernelApi(wired, reload);
}

/** A failure in Register or Init stops the kernel (the hooks registered so far run) and rethrows. */
async function stopOnFailure<T>(lifecycle: Lifecycle, steps: () => Promise<T>): Promise<T> {
  try {
    return await steps();
  } catch (error) {
    await lifecycle.stop();
    throw error;
  }
}

/** Register and Init (the plugin host enters both): the plugins, and the config's settings as they were read. */
async function loadKernelPlugins(
  { options, paths, scope, lifecycle, registries }: Discovered,
  plan: BootPlanned,
): Promise<{ plugins: LoadedPlugins; read?: ConfigSettings }> {
  let read: ConfigSettings | undefined;
  // The settings are read once the plugins that own their keys are known, before any initialises.
  const readSettings = async (declared: ConfigDeclarations): Promise<Record<string, unknown>> => {
    if (plan.config) return plan.config.settings;
    const load = await import('../config/load.js');
    read = load.readSettings(paths, declared, options.inlineConfig);
    return read.settings;
  };
  const plugins = await loadPlugins(plan.sources, options.inlinePlugins ?? [], scope, lifecycle, {
    readSettings,
    hostTokens: options.hostTokens,
    started: stopWithPlugins(registries, lifecycle),
  });
  return { plugins, read };
}

/** The config (the cached one, or built from the settings read), its log settings checked, the config listeners run. */
async function loadKernelConfig(
  { options, paths, registries, checkpoints, logState }: Discovered,
  plan: BootPlanned,
  plugins: LoadedPlugins,
  read: ConfigSettings | undefined,
): Promise<LoadedConfig> {
  const config = plan.config ?? (await buildProjectConfig(paths, read!, registries, plugins.declared, plan.cache));
  logState.settings = config.log;
  if (!options.log) checkLogEngine(config.log, registries.logEngines);
  checkpoints.configure(config.log.checkpoints);
  for (const listener of registries.configListeners.list()) await listener.configLoaded(config);
  return config;
}

/** The tools served: each provider's entries expanded, each tool source's tools added. */
async function collectKernelTools({ options, registries }: Discovered, config: LoadedConfig): Promise<ToolRegistry> {
  // Secrets a provider resolved at boot (an upstream's env) are scrubbed from its failure too.
  const redact = (text: string, tool: ToolDefinition) =>
    processErrorText(registries.processors.list(), text, { tool, secrets: registries.connectionSecrets.resolved() });
  return new ToolRegistry(
    await collectTools(config, registries.providers, registries.sources, {
      expand: options.expandTools !== false,
      redact,
    }),
  );
}

/** `factorly call` names its tool: its provider may start slow preparation while the start goes on (a hint). */
function expectCall({ options, registries }: Discovered, registry: ToolRegistry): void {
  const tool = options.need && registry.get(options.need.tool);
  try {
    if (tool) registries.providers.get(tool.type)?.expect?.(tool);
  } catch {
    // Only a head start: the call itself meets and reports whatever went wrong.
  }
}

/** The tools of the config whose settings were read, validated (and the whole cached, when there is a cache). */
async function buildProjectConfig(
  paths: ProjectPaths,
  read: ConfigSettings,
  registries: CoreRegistries,
  declared: ConfigDeclarations,
  cache?: ConfigCache,
): Promise<LoadedConfig> {
  // YAML and the validators are loaded only when the files must be read.
  const { buildConfig } = await import('../config/load.js');
  const config = buildConfig(paths, read, registries.providers, declared);
  cache?.write(paths, config);
  return config;
}
