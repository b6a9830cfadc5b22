import type { PluginDefinition } from 'factorly';
import { PinTokens } from './api.js';
import { PIN_MODES, PinSight } from './definition.js';
import { PinBook } from './book.js';
import { PinGuard } from './guard.js';
import { PinRule } from './rule.js';

/**
 * Pinned tool definitions: the first time factorly sees a tool, a digest of what agents are told
 * about it is recorded (`tool.pinned`); a listing that differs holds the tool (not listed, its calls
 * refused as `definition_changed`) until a person approves the change (`factorly tools pins`, the
 * web UI). The project's own config entries are pinned again when the owner edits them.
 */
export const plugin: PluginDefinition = {
  id: 'pins',
  apiVersion: '1',
  // `pin: false` on an entry opts its tools out; `pin: strict` holds its new tools too.
  config: { tool: { pin: { schema: { enum: PIN_MODES } } } },
  register(registrar) {
    const book = new PinBook();
    registrar.provide(PinTokens.Pins, book);
    const { tokens } = registrar;
    registrar.registerInit({
      deps: {
        rules: tokens.ShadowRules,
        filters: tokens.CatalogFilters,
        gateway: tokens.CallGateway,
        catalog: tokens.ToolCatalog,
        log: tokens.LazyEventLog,
        paths: tokens.ProjectPaths,
        secrets: tokens.ConnectionSecrets,
        listeners: tokens.ConfigListeners,
      },
      init({ rules, filters, gateway, catalog, log, paths, secrets, listeners }, context) {
        const sight = new PinSight(paths, () => secrets.resolved());
        listeners.add({ name: 'pins.config', configLoaded: (config) => sight.configLoaded(config) }, context.pluginId);
        const guard = new PinGuard({ sight, log, gateway, catalog });
        rules.add(new PinRule(), context.pluginId);
        filters.add(guard, context.pluginId);
        book.attach({ log, catalog });
        context.onStop(() => guard.stop());
      },
    });
  },
};

export default plugin;
