import type { KeyedRegistry, PluginDefinition, SecretBackend } from 'factorly';
import { CliBackend, readBackendSpecs } from './cli-backend.js';
import { EnvBackend } from './env-backend.js';
import { LocalVault } from './local-vault.js';
import { SecretScrubber } from './scrub-processor.js';

// The output processor that redacts resolved secrets, for a host that runs processors itself.
export { SecretScrubber };

/**
 * Secrets: the `vault` backend (encrypted local file, project → global), `env`, the read-only
 * CLI-backed backends of the config's `vault_backends` block, and the output processor that scrubs
 * resolved values.
 */
export const plugin: PluginDefinition = {
  id: 'vault',
  apiVersion: '1',
  config: {
    key: 'vault_backends',
    merge: 'by-name',
    schema: { type: 'object', description: 'a mapping of backend names to {type: cli, get: {command, args}}' },
  },
  register(registrar) {
    const { tokens } = registrar;
    registrar.registerInit({
      deps: {
        backends: tokens.SecretBackends,
        processors: tokens.OutputProcessors,
        paths: tokens.ProjectPaths,
        listeners: tokens.ConfigListeners,
      },
      init({ backends, processors, paths, listeners }, context) {
        backends.add('vault', new LocalVault(paths), context.pluginId);
        backends.add('env', new EnvBackend(), context.pluginId);
        processors.add(new SecretScrubber(), context.pluginId);
        const configured = new ConfiguredBackends(backends, context.pluginId);
        // At boot and after every reload: the file named in messages is the config's first.
        listeners.add(
          {
            name: 'vault.backends',
            configLoaded: (config) => configured.use(config.settings.vault_backends, config.files[0] ?? 'config'),
          },
          context.pluginId,
        );
      },
    });
  },
};

/** The CLI-backed backends the config lists now: a reload replaces them (checking all before touching any). */
class ConfiguredBackends {
  private names: string[] = [];

  constructor(
    private readonly backends: KeyedRegistry<SecretBackend>,
    private readonly owner: string,
  ) {}

  use(setting: unknown, where: string): void {
    const specs = readBackendSpecs(setting, where);
    for (const name of this.names) this.backends.remove(name, this.owner);
    for (const spec of specs) this.backends.add(spec.name, new CliBackend(spec), this.owner);
    this.names = specs.map((spec) => spec.name);
  }
}

export default plugin;
