import { registerDerivedView } from '../events/derived-views.js';
import { registerEventType } from '../events/plugin-event-types.js';
import { FactorlyError } from '../base/errors.js';
import type { Token } from '../base/token.js';
import type { Scope } from '../kernel/container.js';
import { KeyedRegistry, OrderedRegistry } from '../kernel/registries.js';
import type { Dependency, OptionalToken, PluginInit, PluginRegistrar } from './define-plugin.js';
import type { LoadablePlugin } from './order.js';
import { PLUGIN_TOKENS } from './plugin-tokens.js';
import { tokenId, type ProvidedTokens } from './provided.js';

type EventTypeDefinition = Parameters<PluginRegistrar['eventType']>[1];

/** A plugin after `register`: what its init needs, the tokens it provided, and the tokens of other plugins it cannot do without. */
export interface Registered {
  plugin: LoadablePlugin;
  init: PluginInit<Record<string, Dependency>>;
  provides: string[];
  needs: string[];
}

/**
 * Runs a plugin's `register`: it must call `registerInit` once; what it `provide`s is added only
 * when register completes, so a plugin whose register throws leaves nothing behind.
 */
export function registerPlugin(plugin: LoadablePlugin, provided: ProvidedTokens): Registered {
  const { id } = plugin.definition;
  let init: PluginInit<Record<string, Dependency>> | undefined;
  const offers: [Token<unknown>, unknown][] = [];
  // The registrar is the register phase's: kept and used later, it would declare what is already decided.
  let registering = true;
  const during =
    <A extends unknown[], R>(what: string, act: (...args: A) => R) =>
    (...args: A): R => {
      if (!registering)
        throw new FactorlyError('LIFECYCLE', `plugin "${id}" called registrar.${what} after its register returned`);
      return act(...args);
    };
  plugin.definition.register({
    tokens: PLUGIN_TOKENS,
    registerInit: during('registerInit', (value) => {
      if (init) throw new FactorlyError('PLUGIN_INVALID', `plugin "${id}" called registerInit twice`);
      init = value as unknown as PluginInit<Record<string, Dependency>>;
    }),
    provide: during('provide', (token, value) => void offers.push([token, value])),
    // The data's shape is the plugin's to declare (`eventType<D>`); the log checks only that the type is registered.
    eventType: during('eventType', (name: string, { version, upcasters }: EventTypeDefinition) =>
      registerEventType(id, name, version, upcasters),
    ) as PluginRegistrar['eventType'],
    projection: during('projection', (projection) => registerDerivedView(id, projection)),
    index: during('index', (index) => registerDerivedView(id, index)),
    optional: <T>(token: Token<T>): OptionalToken<T> => ({ optional: token }),
    keyedRegistry: <T>(what: string) => new KeyedRegistry<T>(what),
    orderedRegistry: <T extends { readonly order?: number }>() => new OrderedRegistry<T>(),
  });
  registering = false;
  if (!init) throw new FactorlyError('PLUGIN_INVALID', `plugin "${id}" did not call registerInit`);
  const added: Token<unknown>[] = [];
  try {
    for (const [token, value] of offers) {
      provided.provide(id, token, value);
      added.push(token);
    }
  } catch (error) {
    provided.withdraw(id);
    throw error;
  }
  const needs = Object.values(init.deps)
    .filter((dep): dep is Token<unknown> => typeof dep === 'symbol')
    .map(tokenId)
    .filter((name) => !name.startsWith('kernel.'));
  return { plugin, init, provides: added.map(tokenId), needs };
}

/** A plugin's deps: tokens other plugins provided first, then the kernel's; an optional one nothing provides is undefined. */
export function resolveDeps(
  id: string,
  deps: Record<string, Dependency>,
  provided: ProvidedTokens,
  scope: Scope,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(deps).map(([name, dep]) => {
      const optional = typeof dep === 'object' && dep !== null && 'optional' in dep;
      const token = optional ? (dep as OptionalToken<unknown>).optional : (dep as Token<unknown>);
      if (provided.has(token)) return [name, provided.get(token)];
      if (scope.isRegistered(token)) return [name, scope.resolve(token)];
      if (optional) return [name, undefined];
      throw new FactorlyError(
        'PLUGIN_DEPENDENCY',
        `plugin "${id}" needs "${tokenId(token)}" (as deps.${name}), which no installed plugin provides`,
      );
    }),
  );
}
