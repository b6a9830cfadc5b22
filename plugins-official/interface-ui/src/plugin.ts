import { PinTokens } from '@factorly/plugin-pins/api';
import { ShadowTokens } from '@factorly/plugin-shadow/api';
import type { InterfaceOptions, PluginDefinition } from 'factorly';
import { UiConfirmChannel } from './confirm-channel.js';

/**
 * Registers the `ui` interface that `factorly ui` runs, and the `ui` confirm channel, which every
 * factorly process has so that its confirmations can be answered in a running UI.
 */
export const plugin: PluginDefinition = {
  id: 'interface-ui',
  apiVersion: '1',
  register(registrar) {
    registrar.registerInit({
      deps: {
        interfaces: registrar.tokens.Interfaces,
        channels: registrar.tokens.ConfirmChannels,
        gateway: registrar.tokens.CallGateway,
        paths: registrar.tokens.ProjectPaths,
        backends: registrar.tokens.SecretBackends,
        openLog: registrar.tokens.LazyEventLog,
        services: registrar.optional(registrar.tokens.HostServices),
        policies: registrar.optional(ShadowTokens.Policies),
        pins: registrar.optional(PinTokens.Pins),
      },
      init({ interfaces, channels, gateway, paths, backends, openLog, services, policies, pins }, context) {
        channels.add(new UiConfirmChannel(paths.stateDir, openLog), context.pluginId);
        interfaces.add(
          'ui',
          {
            name: 'ui',
            // Loaded on use: every factorly process registers the UI, only `factorly ui` needs the server.
            serve: async (options: InterfaceOptions, signal: AbortSignal) => {
              const { serveUi } = await import('./server.js');
              await serveUi(options, { services, policies, pins, gateway, paths, backends, openLog }, signal);
            },
          },
          context.pluginId,
        );
      },
    });
  },
};

export default plugin;
