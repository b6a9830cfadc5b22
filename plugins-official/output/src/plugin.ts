import type { PluginDefinition } from 'factorly';
import { cleanProcessor, compressProcessor, filterProcessor, truncateProcessor } from './processors.js';

/** Registers the output processing stages (see processors.ts for their order). */
export const plugin: PluginDefinition = {
  id: 'output',
  apiVersion: '1',
  register(registrar) {
    registrar.registerInit({
      deps: { processors: registrar.tokens.OutputProcessors },
      init({ processors }, context) {
        for (const processor of [cleanProcessor, filterProcessor, compressProcessor, truncateProcessor]) processors.add(processor, context.pluginId);
      },
    });
  },
};

export default plugin;
