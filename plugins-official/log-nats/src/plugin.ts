import type { LogEngine, PluginDefinition } from 'factorly';
import { natsProblem, natsSettingsOf } from './nats-settings.js';
import { NatsBatchStream } from './nats-stream.js';

/**
 * `log: {engine: nats}`: the event log on a NATS JetStream stream, shared by every factorly node
 * configured with the same stream and subject.
 */
export const natsLogEngine: LogEngine = {
  name: 'nats',
  check: natsProblem,
  open(context) {
    const settings = natsSettingsOf(context.options);
    const credentials = async () =>
      settings.credentials === undefined ? undefined : context.secret(settings.credentials);
    return context.replicated(new NatsBatchStream(settings, credentials, (message) => context.warn(message)), {
      timeoutMs: settings.timeoutMs,
    });
  },
};

export const plugin: PluginDefinition = {
  id: 'log-nats',
  apiVersion: '1',
  register(registrar) {
    registrar.registerInit({
      deps: { engines: registrar.tokens.LogEngines },
      init({ engines }, context) {
        engines.add('nats', natsLogEngine, context.pluginId);
      },
    });
  },
};

export default plugin;
