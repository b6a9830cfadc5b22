import type { Token } from '../kernel/base/token.js';
import type { KernelTokens } from '../kernel/tokens.js';
import type { StopHook } from '../kernel/lifecycle.js';

/** The plugin API this factorly provides. A plugin declares the major version it was built for. */
export const PLUGIN_API_VERSION = '1';

type Resolved<D> = { [K in keyof D]: D[K] extends Token<infer T> ? T : never };

export interface PluginContext {
  readonly pluginId: string;
  /** Runs when the kernel stops (hooks run in reverse order of registration). */
  onStop(hook: StopHook): void;
}

export interface PluginInit<D extends Record<string, Token<unknown>>> {
  deps: D;
  init(deps: Resolved<D>, context: PluginContext): void | Promise<void>;
}

/** Handed to `register`. Carries the kernel tokens so a plugin needs no runtime import of factorly. */
export interface PluginRegistrar {
  readonly tokens: KernelTokens;
  /** Must be called exactly once. */
  registerInit<D extends Record<string, Token<unknown>>>(init: PluginInit<D>): void;
}

/**
 * A plugin is a declaration: importing its module does nothing; the kernel calls `register`,
 * orders plugins by `requires`, then runs each `init` with the services it asked for.
 */
export interface PluginDefinition {
  id: string;
  apiVersion: string;
  /** Ids of plugins whose init must run before this one. */
  requires?: string[];
  register(registrar: PluginRegistrar): void;
}

/** Identity with type checking, for plugin authors. */
export function definePlugin(definition: PluginDefinition): PluginDefinition {
  return definition;
}
