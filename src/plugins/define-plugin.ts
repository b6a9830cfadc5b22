import type { Token } from '../base/token.js';
import type { PluginEventType } from '../events/envelope.js';
import type { EventIndex } from '../events/event-index.js';
import type { Projection } from '../events/projection.js';
import type { PluginConfig } from '../config/plugin-config.js';
import type { StopHook } from '../kernel/lifecycle.js';
import type { KeyedRegistry, OrderedRegistry } from '../kernel/registries.js';
import type { PluginTokens } from './plugin-tokens.js';

/** The plugin API this factorly provides. A plugin declares the major version it was built for. */
export const PLUGIN_API_VERSION = '1';

/** A dependency a plugin can do without (`registrar.optional(token)`): undefined when nothing provides it. */
export interface OptionalToken<T> {
  readonly optional: Token<T>;
}

export type Dependency = Token<unknown> | OptionalToken<unknown>;

type Resolved<D> = {
  [K in keyof D]: D[K] extends Token<infer T> ? T : D[K] extends OptionalToken<infer T> ? T | undefined : never;
};

export interface PluginContext {
  readonly pluginId: string;
  /**
   * The plugin's own config block (`config.key` of its definition), checked against its schema
   * (defaults the schema declares filled in); undefined when the config has no such block.
   */
  readonly config: unknown;
  /** Called with the block again whenever a reload of the config changed it (undefined: removed). */
  onConfig(listener: (value: unknown) => void | Promise<void>): void;
  /** Runs when the kernel stops (hooks run in reverse order of registration). */
  onStop(hook: StopHook): void;
}

export interface PluginInit<D extends Record<string, Dependency>> {
  deps: D;
  init(deps: Resolved<D>, context: PluginContext): void | Promise<void>;
}

/**
 * Handed to `register`. Carries the kernel's tokens and what a plugin needs to offer extension
 * points of its own, so a plugin needs no runtime import of factorly.
 */
export interface PluginRegistrar {
  readonly tokens: PluginTokens;
  /** Must be called exactly once. */
  registerInit<D extends Record<string, Dependency>>(init: PluginInit<D>): void;
  /**
   * Provides `value` under one of this plugin's own tokens (made with `createToken('<plugin-id>.<name>')`,
   * or `Symbol.for('factorly:<plugin-id>.<name>')`), for other plugins to name in their `deps`. Every
   * plugin registers before any initialises, so the value is there for all of them; a plugin that
   * fails to load withdraws it. Export the token and its type from the package (an `api` entry).
   */
  provide<T>(token: Token<T>, value: T): void;
  /**
   * Adds an event type of this plugin's to the catalogue, `<plugin-id>.<name>`, written at `version`;
   * `upcasters[n]` turns the data of a v`n` event into v`n+1` data, so readers (projections, rules'
   * history) always see the current shape. Returns the type to append (`log.append([{ type, data }])`),
   * typed with the shape `D` of the current version's data, so the append type-checks.
   */
  eventType<D = unknown>(
    name: string,
    definition: { version: number; upcasters?: Readonly<Record<number, (data: unknown) => unknown>> },
  ): PluginEventType<D>;
  /**
   * Registers derived state this plugin keeps over the log: a persisted projection (a fold kept with
   * snapshots, see `Projection`) or an index (`EventIndex`: the keys a page or a query looks events up
   * by, such as a history filter). Every log the kernel opens keeps it in the same write as the events;
   * a snapshot is used only when the chain vouches for its digest, an index hit is checked against the
   * event it names, and `logs verify` folds and indexes the log again and names one that differs. Give
   * it `module: import.meta.url` (the module exporting it) so verification threads can load it.
   */
  projection(projection: Projection<unknown>): void;
  index(index: EventIndex): void;
  /** A dependency this plugin can do without (the plugin that provides it may not be installed). */
  optional<T>(token: Token<T>): OptionalToken<T>;
  /** A new keyed extension point (one contribution per key) to `provide`; a failed plugin's contributions are rolled back. */
  keyedRegistry<T>(what: string): KeyedRegistry<T>;
  /** A new ordered extension point to `provide`. */
  orderedRegistry<T extends { readonly order?: number }>(): OrderedRegistry<T>;
}

/**
 * A plugin is a declaration: importing its module does nothing; the kernel calls every plugin's
 * `register`, orders them by `requires`, then runs each `init` with the services it asked for.
 */
export interface PluginDefinition {
  id: string;
  apiVersion: string;
  /** Ids of plugins whose init must run before this one. */
  requires?: string[];
  /**
   * The config keys this plugin owns: its top-level block, keys on tool entries, keys in tools'
   * `shadow:` blocks, each with a JSON Schema the loader checks (see `PluginConfig`).
   */
  config?: PluginConfig;
  register(registrar: PluginRegistrar): void;
}

/** Identity with type checking, for plugin authors. */
export function definePlugin(definition: PluginDefinition): PluginDefinition {
  return definition;
}
