import { PinTokens } from '@factorly/plugin-pins/api';
import { ShadowTokens } from '@factorly/plugin-shadow/api';
import { OAuthTokens } from '@factorly/plugin-oauth/api';
import type { InterfaceOptions, PluginDefinition } from 'factorly';
import { UiPersonChannel } from './person-channel.js';

/**
 * Registers the `ui` interface that `factorly ui` runs, and the `ui` person channel, which every
 * factorly process has so that its confirmations and questions can be answered in a running UI.
 */
export const plugin: PluginDefinition = {
  id: 'interface-ui',
  apiVersion: '1',
  register(registrar) {
    registrar.registerInit({
      deps: {
        interfaces: registrar.tokens.Interfaces,
        channels: registrar.tokens.PersonChannels,
        gateway: registrar.tokens.CallGateway,
        paths: registrar.tokens.ProjectPaths,
        backends: registrar.tokens.SecretBackends,
        openLog: registrar.tokens.LazyEventLog,
        services: registrar.optional(registrar.tokens.HostServices),
        policies: registrar.optional(ShadowTokens.Policies),
        oauth: registrar.optional(OAuthTokens.Client),
        pins: registrar.optional(PinTokens.Pins),
      },
      init({ interfaces, channels, gateway, paths, backends, openLog, services, policies, oauth, pins }, context) {
        channels.add(new UiPersonChannel(paths.stateDir, openLog), context.pluginId);
        interfaces.add(
          'ui',
          {
            name: 'ui',
            // Loaded on use: every factorly process registers the UI, only `factorly ui` needs the server.
            serve: async (options: InterfaceOptions, signal: AbortSignal) => {
              const { serveUi } = await import('./server.js');
              await serveUi(options, { services, policies, pins, gateway, paths, backends, openLog, oauth }, signal);
            },
          },
          context.pluginId,
        );
      },
    });
  },
};

export default plugin;
