import { childEntry, dependencyVersion, ProcessEngine } from '@factorly/sandbox-kit';
import type { PluginDefinition, SandboxEngine } from 'factorly';

/** The `ses` engine: a fresh SES Compartment per run, in a locked-down child process. */
export function createSesEngine(name = 'ses'): SandboxEngine {
  return new ProcessEngine(
    name,
    {
      script: childEntry(import.meta.dirname, 'ses-child.js'),
      // SES cannot interrupt a running guest: the supervisor's kill at the deadline is the stop.
      graceMs: 0,
      // V8's heap limit is a second line behind the RSS watchdog (ArrayBuffers are outside it).
      execArgv: ['--max-old-space-size=256'],
      // The engine process is this Node: its V8 is part of what runs the script.
    },
    `${dependencyVersion(import.meta.dirname, 'ses')} on Node ${process.version}`,
  );
}

export const plugin: PluginDefinition = {
  id: 'engine-ses',
  apiVersion: '1',
  register(registrar) {
    registrar.registerInit({
      deps: { engines: registrar.tokens.SandboxEngines },
      init({ engines }, context) {
        engines.add('ses', createSesEngine(), context.pluginId);
      },
    });
  },
};

export default plugin;
