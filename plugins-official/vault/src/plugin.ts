import type { PluginDefinition } from 'factorly';
import { CliBackend, readBackendSpecs } from './cli-backend.js';
import { EnvBackend } from './env-backend.js';
import { LocalVault } from './local-vault.js';
import { SecretScrubber } from './scrub-processor.js';

/**
 * Secrets: the `vault` backend (encrypted local file, project → global), `env`, the read-only
 * CLI-backed backends of `vault_backends`, and the output processor that scrubs resolved values.
 */
export const plugin: PluginDefinition = {
  id: 'vault',
  apiVersion: '1',
  register(registrar) {
    const { tokens } = registrar;
    registrar.registerInit({
      deps: { backends: tokens.SecretBackends, processors: tokens.OutputProcessors, paths: tokens.ProjectPaths, listeners: tokens.ConfigListeners },
      init({ backends, processors, paths, listeners }, context) {
        backends.add('vault', new LocalVault(paths), context.pluginId);
        backends.add('env', new EnvBackend(), context.pluginId);
        processors.add(new SecretScrubber(), context.pluginId);
        listeners.add({
          name: 'vault.backends',
          configLoaded(config) {
            const where = config.files[0] ?? 'config';
            for (const spec of readBackendSpecs(config.settings.vault_backends, where)) backends.add(spec.name, new CliBackend(spec), context.pluginId);
          },
        }, context.pluginId);
      },
    });
  },
};

export default plugin;
