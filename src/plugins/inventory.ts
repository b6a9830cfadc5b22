import { pluginEventTypes } from '../events/plugin-event-types.js';
import type { KeyPlace } from '../config/declared.js';
import type { KeyedRegistry, OrderedRegistry } from '../kernel/registries.js';
import type { LoadedPlugins } from './host.js';

/** A plugin as `factorly plugins inspect` shows it: what it is, whether it loaded, what it contributes. */
export interface PluginInventory {
  id: string;
  /** npm package root (for a failed package, where it is). */
  root: string;
  version?: string;
  /** core (shipped with factorly), user (installed), link, builtin. */
  source?: string;
  status: 'loaded' | 'failed';
  /** Why it did not load, with the error code. */
  reason?: string;
  code?: string;
  /** What it added to each extension point, by point: tool types, rules, engines, interfaces … and its event types (`<type>@<version>`). */
  contributes: Record<string, string[]>;
  /** Tokens it provides to other plugins (`<plugin-id>.<name>`). */
  provides: string[];
  /** Config keys it declared: its own top-level block, keys on tool entries, keys in `shadow:` blocks. */
  config: Record<KeyPlace, string[]>;
}

type Named = { readonly name?: string; readonly type?: string; readonly order?: number };

/** The kernel's extension points a plugin adds to. */
export interface InventoryRegistries {
  providers: KeyedRegistry<unknown>;
  rules: OrderedRegistry<Named>;
  processors: OrderedRegistry<Named>;
  channels: OrderedRegistry<Named>;
  personChannels: OrderedRegistry<Named>;
  backends: KeyedRegistry<unknown>;
  interfaces: KeyedRegistry<unknown>;
  engines: KeyedRegistry<unknown>;
  sources: OrderedRegistry<Named>;
  filters: OrderedRegistry<Named>;
}

/** Each point under the name a person reads in `plugins inspect`. */
const POINTS: Record<keyof InventoryRegistries, string> = {
  providers: 'toolTypes',
  rules: 'rules',
  processors: 'outputProcessors',
  channels: 'confirmChannels',
  personChannels: 'personChannels',
  backends: 'secretBackends',
  interfaces: 'interfaces',
  engines: 'engines',
  sources: 'toolSources',
  filters: 'catalogFilters',
};

/** Each plugin, loaded or not, with everything it contributed and declared. */
export function inventoryOf(plugins: LoadedPlugins, registries: InventoryRegistries): PluginInventory[] {
  const contributes = new Map<string, Record<string, string[]>>();
  const add = (owner: string, point: string, what: string): void => {
    const entry = contributes.get(owner) ?? {};
    (entry[point] ??= []).push(what);
    contributes.set(owner, entry);
  };
  for (const [name, point] of Object.entries(POINTS) as [keyof InventoryRegistries, string][]) {
    const registry = registries[name];
    if ('ownersByKey' in registry) for (const [key, owner] of registry.ownersByKey()) add(owner, point, key);
    else
      for (const { value, owner } of registry.contributions())
        add(owner, point, value.name ?? value.type ?? '(unnamed)');
  }
  for (const { type, version, owner } of pluginEventTypes()) add(owner, 'eventTypes', `${type}@${version}`);
  const provides = (id: string) => plugins.provided.filter((token) => token.owner === id).map((token) => token.id);
  const loaded = plugins.loaded.map((plugin): PluginInventory => ({
    id: plugin.id,
    root: plugin.root,
    version: plugin.version,
    source: plugin.source,
    status: 'loaded',
    contributes: contributes.get(plugin.id) ?? {},
    provides: provides(plugin.id),
    config: plugins.declared.keysOf(plugin.id),
  }));
  const failed = plugins.failed.map((plugin): PluginInventory => ({
    id: plugin.id,
    root: plugin.root,
    status: 'failed',
    reason: plugin.reason,
    code: plugin.code,
    contributes: {},
    provides: [],
    config: { settings: [], tool: [], shadow: [] },
  }));
  return [...loaded, ...failed];
}
