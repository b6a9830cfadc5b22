import { ConfigDeclarations } from '../config/declared.js';
import type { LoadablePlugin } from './order.js';

type Listener = (value: unknown) => void | Promise<void>;

/** Adds each plugin's config declarations; a plugin whose keys clash is refused (`fail`) and left out. */
export function declareConfig(
  plugins: readonly LoadablePlugin[],
  fail: (plugin: LoadablePlugin, error: unknown) => void = () => undefined,
) {
  const declared = new ConfigDeclarations();
  const kept: LoadablePlugin[] = [];
  for (const plugin of plugins) {
    try {
      declared.add(plugin.definition.id, plugin.definition.config);
      kept.push(plugin);
    } catch (error) {
      fail(plugin, error);
    }
  }
  return { plugins: kept, declared };
}

/** Each plugin's block of the settings (`PluginContext.config`), and the listeners that want it again after a reload. */
export class PluginConfigs {
  private readonly listeners = new Map<string, Listener[]>();

  constructor(
    private readonly declared: ConfigDeclarations,
    private settings: Record<string, unknown>,
  ) {}

  of(plugin: string): unknown {
    const key = this.declared.blockOf(plugin);
    return key === undefined ? undefined : this.settings[key];
  }

  listen(plugin: string, listener: Listener): void {
    this.listeners.set(plugin, [...(this.listeners.get(plugin) ?? []), listener]);
  }

  /** Hands every plugin whose block a reload changed its new value. */
  async reconfigure(next: Record<string, unknown>): Promise<void> {
    const before = this.settings;
    this.settings = next;
    for (const [plugin, listeners] of this.listeners) {
      const key = this.declared.blockOf(plugin);
      if (key === undefined || JSON.stringify(before[key]) === JSON.stringify(next[key])) continue;
      for (const listener of listeners) await listener(next[key]);
    }
  }
}
