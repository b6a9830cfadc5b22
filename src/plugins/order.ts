import { FactorlyError } from '../base/errors.js';
import type { PluginDefinition } from './define-plugin.js';
import type { PluginSource } from './manifest.js';

/** A plugin ready to be ordered: its definition and where it came from. */
export interface LoadablePlugin {
  source: PluginSource;
  definition: PluginDefinition;
}

export interface OrderResult {
  ordered: LoadablePlugin[];
  refused: { plugin: LoadablePlugin; error: FactorlyError }[];
}

/**
 * Orders plugins so each comes after the plugins it requires (stable: otherwise by id). Plugins in a
 * cycle, requiring a missing plugin, or sharing an id with another are refused with a message
 * naming the cycle, the missing id or both packages.
 */
export function orderPlugins(plugins: readonly LoadablePlugin[]): OrderResult {
  const refused: OrderResult['refused'] = [];
  const byId = new Map<string, LoadablePlugin>();
  for (const plugin of [...plugins].sort((a, b) => a.definition.id.localeCompare(b.definition.id))) {
    const other = byId.get(plugin.definition.id);
    if (other) {
      refused.push({
        plugin,
        error: new FactorlyError(
          'PLUGIN_INVALID',
          `plugin id "${plugin.definition.id}" is used by both ${other.source.root} and ${plugin.source.root}`,
        ),
      });
    } else byId.set(plugin.definition.id, plugin);
  }
  const ordered: LoadablePlugin[] = [];
  const state = new Map<string, 'visiting' | 'done' | 'refused'>();
  const visit = (id: string, path: string[]): boolean => {
    const mark = state.get(id);
    if (mark === 'done') return true;
    if (mark === 'refused') return false;
    const plugin = byId.get(id)!;
    if (mark === 'visiting') {
      const cycle = [...path.slice(path.indexOf(id)), id].join(' → ');
      refuse(plugin, new FactorlyError('PLUGIN_DEPENDENCY', `plugin dependency cycle: ${cycle}`));
      return false;
    }
    state.set(id, 'visiting');
    for (const required of plugin.definition.requires ?? []) {
      if (!byId.has(required)) {
        refuse(
          plugin,
          new FactorlyError(
            'PLUGIN_DEPENDENCY',
            `plugin "${id}" requires plugin "${required}", which is not installed`,
          ),
        );
        return false;
      }
      if (!visit(required, [...path, id])) {
        if (state.get(id) !== 'refused')
          refuse(
            plugin,
            new FactorlyError(
              'PLUGIN_DEPENDENCY',
              `plugin "${id}" requires plugin "${required}", which could not be loaded`,
            ),
          );
        return false;
      }
    }
    state.set(id, 'done');
    ordered.push(plugin);
    return true;
  };
  const refuse = (plugin: LoadablePlugin, error: FactorlyError): void => {
    state.set(plugin.definition.id, 'refused');
    refused.push({ plugin, error });
  };
  for (const id of byId.keys()) visit(id, []);
  return { ordered, refused };
}
