import { childEntry, dependencyVersion, ProcessEngine } from '@factorly/sandbox-kit';
import type { PluginDefinition, SandboxEngine } from 'factorly';

/** The `quickjs` engine: the sync WASM build of QuickJS, one fresh runtime per run, in a child process. */
export function createQuickJsEngine(name = 'quickjs'): SandboxEngine {
  return new ProcessEngine(
    name,
    {
      script: childEntry(import.meta.dirname, 'quickjs-child.js'),
      // The engine stops its own runs at the deadline (interrupt handler); the kill is the backstop.
      graceMs: 250,
    },
    dependencyVersion(import.meta.dirname, '@jitl/quickjs-wasmfile-release-sync'),
  );
}

export const plugin: PluginDefinition = {
  id: 'engine-quickjs',
  apiVersion: '1',
  register(registrar) {
    registrar.registerInit({
      deps: { engines: registrar.tokens.SandboxEngines },
      init({ engines }, context) {
        engines.add('quickjs', createQuickJsEngine(), context.pluginId);
      },
    });
  },
};

export default plugin;
