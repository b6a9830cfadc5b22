import { FactorlyError, messageOf } from '../base/errors.js';
import type { ConfigBlock, PluginConfig } from './plugin-config.js';
import { schemaProblems, type SchemaProblem } from './json-schema.js';

/** A plugin that declared a key, with the block that key must match. */
export interface KeyOwner {
  plugin: string;
  block: ConfigBlock;
}

/** Where a key sits: the top level of a file, a tool entry, or a tool's `shadow:` block. */
export type KeyPlace = 'settings' | 'tool' | 'shadow';

/** Top-level keys of the kernel's own: the catalogue, where more of it lives, and the event log's settings. */
export const KERNEL_SETTINGS = ['tools', 'tools_dir', 'log'] as const;
/** Descriptive keys of a shared tool pack (who made it, what it is): accepted, never acted on. */
export const DESCRIPTIVE_SETTINGS = [
  'name',
  'display_name',
  'version',
  'description',
  'category',
  'author',
  'homepage',
  'license',
  'auth_type',
  'auth_guide',
  'requires',
] as const;
/** Keys every tool entry may have, whatever its type. */
export const COMMON_TOOL_KEYS = [
  'type',
  'description',
  'hidden',
  'timeout',
  'max_output',
  'parameters',
  'shadow',
] as const;

const RESERVED: Record<KeyPlace, readonly string[]> = {
  settings: [...KERNEL_SETTINGS, ...DESCRIPTIVE_SETTINGS],
  tool: COMMON_TOOL_KEYS,
  shadow: [],
};

/**
 * Every config key the loaded plugins declared (`PluginDefinition.config`), by place. A plugin's own
 * block (`key`) is its alone; other keys may be declared by several plugins that read them (each
 * plugin's schema must then accept the value).
 */
export class ConfigDeclarations {
  private readonly places: Record<KeyPlace, Map<string, KeyOwner[]>> = {
    settings: new Map(),
    tool: new Map(),
    shadow: new Map(),
  };
  private readonly own = new Map<string, string>();
  private readonly byName = new Set<string>();

  /** Adds one plugin's declarations, or throws (adding nothing) when they clash with the kernel's keys or another plugin's block. */
  add(plugin: string, config: PluginConfig | undefined): void {
    if (!config) return;
    const entries: [KeyPlace, string, ConfigBlock][] = [];
    if (config.key !== undefined)
      entries.push(['settings', config.key, { schema: config.schema ?? {}, check: config.check }]);
    for (const place of ['settings', 'tool', 'shadow'] as const) {
      for (const [key, block] of Object.entries(config[place] ?? {})) entries.push([place, key, block]);
    }
    for (const [place, key] of entries)
      this.refuseClash(plugin, place, key, key === config.key && place === 'settings');
    if (config.key !== undefined) this.own.set(config.key, plugin);
    if (config.key !== undefined && config.merge === 'by-name') this.byName.add(config.key);
    for (const [place, key, block] of entries)
      this.places[place].set(key, [...(this.places[place].get(key) ?? []), { plugin, block }]);
  }

  owners(place: KeyPlace, key: string): readonly KeyOwner[] | undefined {
    return this.places[place].get(key);
  }

  /** Every key known at a place, the kernel's included (for messages and suggestions). */
  known(place: KeyPlace): string[] {
    return [...RESERVED[place], ...this.places[place].keys()];
  }

  /** Whether the values of a top-level key in several files merge entry by entry (`PluginConfig.merge`). */
  mergesByName(key: string): boolean {
    return this.byName.has(key);
  }

  /** The plugin whose own block `key` is. */
  ownerOfBlock(key: string): string | undefined {
    return this.own.get(key);
  }

  /** Every key a plugin declared, by place (its own block among the settings). */
  keysOf(plugin: string): Record<KeyPlace, string[]> {
    const of = (place: KeyPlace) =>
      [...this.places[place]]
        .filter(([, owners]) => owners.some((owner) => owner.plugin === plugin))
        .map(([key]) => key);
    return { settings: of('settings'), tool: of('tool'), shadow: of('shadow') };
  }

  /** The key of a plugin's own block. */
  blockOf(plugin: string): string | undefined {
    for (const [key, owner] of this.own) if (owner === plugin) return key;
    return undefined;
  }

  /**
   * Checks a value against every plugin that declared its key: each schema, then (when it passed)
   * each plugin's own checks. A check that throws is a problem too.
   */
  check(owners: readonly KeyOwner[], value: unknown, report: (problem: SchemaProblem) => void): void {
    for (const { plugin, block } of owners) {
      let found: SchemaProblem[];
      try {
        found = schemaProblems(block.schema, value, `plugin "${plugin}"`);
      } catch (error) {
        report({ message: messageOf(error), path: [] });
        continue;
      }
      found.forEach(report);
      if (found.length > 0 || !block.check) continue;
      try {
        block.check(value, (message, path = []) => report({ message, path: [...path] }));
      } catch (error) {
        report({ message: `plugin "${plugin}" could not check it: ${messageOf(error)}`, path: [] });
      }
    }
  }

  private refuseClash(plugin: string, place: KeyPlace, key: string, ownBlock: boolean): void {
    const where =
      place === 'settings' ? `top-level key "${key}"` : place === 'tool' ? `tool key "${key}"` : `key "shadow.${key}"`;
    if (RESERVED[place].includes(key))
      throw new FactorlyError(
        'PLUGIN_INVALID',
        `plugin "${plugin}" declares the config's ${where}, which is factorly's own`,
      );
    if (place !== 'settings') return;
    const blockOwner = this.own.get(key);
    const others = (this.places.settings.get(key) ?? []).map((owner) => owner.plugin);
    if (blockOwner ?? (ownBlock ? others[0] : undefined)) {
      throw new FactorlyError(
        'EXTENSION_CONFLICT',
        `config ${where} is declared twice: by plugin "${blockOwner ?? others[0]}" and by plugin "${plugin}"`,
      );
    }
  }
}
