import { CacheKind } from '../base/cache-file.js';
import type { LoadedPlugins, PluginReport } from '../plugins/host.js';
import type { EffectiveRecord } from './boot-record.js';
import { ConfigCache } from '../config/config-cache.js';
import type { LoadedConfig } from '../config/load.js';
import type { ProjectPaths } from '../config/paths.js';
import type { KernelOptions } from './kernel-api.js';
import type { PluginSource } from '../plugins/manifest.js';
import type { ToolDefinition } from '../contracts/tool.js';
import type { KeyedRegistry, OrderedRegistry } from './registries.js';

/** What one plugin contributed at a full boot: `provider:<type>`, `rules`, `processors`, `backends`, … */
export interface PlannedPlugin {
  id: string;
  root: string;
  owns: string[];
}

/** Every plugin's contributions, as the last full boot with the same plugins found them. */
export interface BootPlan {
  schema: 1;
  key: string;
  plugins: PlannedPlugin[];
  /**
   * The full boot's plugin report. A start narrowed by this plan records it in its boot record: the
   * installation is that boot's (same plugins, same code), some of its plugins merely not needed.
   */
  report: PluginReport;
  /** The full boot's effective configuration, which a start narrowed by this plan records as its own. */
  effective?: EffectiveRecord;
}

type Registry = KeyedRegistry<unknown> | OrderedRegistry<{ order?: number }>;

/** The registries a plan records, by the name used in `owns`. */
export type PlanRegistries = Record<
  | 'rules'
  | 'processors'
  | 'channels'
  | 'personChannels'
  | 'backends'
  | 'listeners'
  | 'sources'
  | 'interfaces'
  | 'engines',
  Registry
> & {
  providers: KeyedRegistry<unknown>;
};

/**
 * What a full boot saw each loaded plugin contribute: to the kernel's extension points, and to the
 * ones plugins provide (`token:<id>`), and which tokens each provides (`provides:<id>`).
 */
export function planOf(
  key: string,
  plugins: LoadedPlugins,
  registries: PlanRegistries,
  effective?: EffectiveRecord,
): BootPlan {
  const report: PluginReport = { loaded: plugins.loaded, failed: plugins.failed };
  const owns = new Map<string, string[]>(report.loaded.map((plugin) => [plugin.id, []]));
  for (const [type, owner] of registries.providers.ownersByKey()) owns.get(owner)?.push(`provider:${type}`);
  const named: [string, Registry][] = [
    ...Object.entries(registries).filter(([name]) => name !== 'providers'),
    ...plugins.provided
      .filter(({ value }) => isRegistry(value))
      .map(({ id, value }): [string, Registry] => [`token:${id}`, value as Registry]),
  ];
  for (const [name, registry] of named) for (const owner of ownersOf(registry)) owns.get(owner)?.push(name);
  for (const { id, owner } of plugins.provided) owns.get(owner)?.push(`provides:${id}`);
  for (const [plugin, needs] of plugins.needs) owns.get(plugin)?.push(...needs.map((id) => `needs:${id}`));
  return {
    schema: 1,
    key,
    plugins: report.loaded.map((plugin) => ({ id: plugin.id, root: plugin.root, owns: owns.get(plugin.id) ?? [] })),
    report,
    effective,
  };
}

function isRegistry(value: unknown): boolean {
  return (
    typeof (value as { owners?: unknown } | null)?.owners === 'function' ||
    typeof (value as { ownersByKey?: unknown } | null)?.ownersByKey === 'function'
  );
}

function ownersOf(registry: Registry): Set<string> {
  return 'owners' in registry ? registry.owners() : new Set(registry.ownersByKey().values());
}

/**
 * The plugins a `call` of `tool` needs, from a plan: the provider of its type, every rule, every
 * output processor, and, only when the tool refers to a secret, the plugins that provide secrets
 * (with their processors: they scrub those secrets), and, only when it asks for confirmation, the
 * confirm channels. Undefined (load everything) when the plan cannot tell: a plugin it does not
 * know, a provider that also contributes something else (an upstream server's pass-through, a
 * tool source), a tool that is not a config entry of its own, or built-in overlays to apply.
 */
export function pluginsForCall(
  plan: BootPlan,
  sources: readonly PluginSource[],
  tool: ToolDefinition | undefined,
  overlays: number,
): PluginSource[] | undefined {
  if (!tool || overlays > 0) return undefined;
  const byRoot = new Map(plan.plugins.map((plugin) => [plugin.root, plugin]));
  const provider = plan.plugins.find((plugin) => plugin.owns.includes(`provider:${tool.type}`));
  if (!provider || provider.owns.some((what) => !/^(provider|provides|needs):/.test(what))) return undefined;
  const secrets = refersToSecrets(tool);
  // Any shadow setting may make a rule ask a person (the kernel cannot tell which do): then the channels load too.
  const confirm = Object.keys(tool.shadow ?? {}).length > 0;
  const needed = (plugin: PlannedPlugin): boolean => {
    if (plugin === provider || plugin.owns.includes('rules')) return true;
    if (plugin.owns.includes('backends') || plugin.owns.includes('listeners')) return secrets;
    const asks = plugin.owns.includes('channels') || plugin.owns.includes('personChannels');
    return plugin.owns.includes('processors') || (confirm && asks);
  };
  const chosen = new Set<PlannedPlugin>();
  for (const source of sources) {
    if (source.manifest === undefined) continue;
    const planned = byRoot.get(source.root);
    if (!planned) return undefined;
    if (needed(planned)) chosen.add(planned);
  }
  withProviders(plan, chosen);
  return sources.filter((source) => source.manifest !== undefined && chosen.has(byRoot.get(source.root)!));
}

/** Adds, to the plugins chosen, those that provide a token one of them cannot do without (and so on). */
function withProviders(plan: BootPlan, chosen: Set<PlannedPlugin>): void {
  for (const plugin of chosen) {
    for (const need of plugin.owns.filter((what) => what.startsWith('needs:'))) {
      const provider = plan.plugins.find((other) => other.owns.includes(`provides:${need.slice('needs:'.length)}`));
      if (provider) chosen.add(provider);
    }
  }
}

/** A `{{<backend>:KEY}}` reference anywhere in the definition, or a parameter that takes references. */
function refersToSecrets(tool: ToolDefinition): boolean {
  return (
    /\{\{\s*[A-Za-z_][\w-]*\s*:/.test(JSON.stringify(tool)) ||
    tool.parameters.some((parameter) => parameter.hydrateVaultRefs !== undefined)
  );
}

export function readPlan(dir: string, key: string): BootPlan | undefined {
  const text = PLANS.read(dir, key);
  if (text === undefined) return undefined;
  try {
    const plan = JSON.parse(text) as BootPlan;
    return plan.schema === 1 && plan.key === key && Array.isArray(plan.plugins) && Array.isArray(plan.report?.loaded)
      ? plan
      : undefined;
  } catch {
    return undefined;
  }
}

export function writePlan(dir: string, plan: BootPlan): void {
  PLANS.write(dir, plan.key, JSON.stringify(plan));
}

/** One plan per plugin set (the config cache's key), those of eight kept side by side (two installations, an upgrade and its rollback). */
const PLANS = new CacheKind('boot-plan', 8);

/**
 * Which plugins to load, and the config when the cache has it. For a command that names the one
 * tool it will call (`need`), a cached config and the plan of the last full boot with these plugins
 * narrow the plugins to those that call needs (`pluginsForCall`; all, with another log engine than LMDB).
 */
export function planBoot(
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
