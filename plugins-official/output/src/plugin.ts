import type { PluginDefinition } from 'factorly';
import { compileFilter, FILTER_KEYS } from './filter-spec.js';
import { cleanProcessor, COMPRESS_MODES, compressProcessor, filterProcessor, truncateProcessor } from './processors.js';

/**
 * Registers the output processing stages (see processors.ts for their order). Each tool may set
 * `compress: json | logs | all | none` and `filter: {keep_lines, head_lines, json_path, …}`; both are
 * checked when the config loads, so a bad regex or JSONPath names its line.
 */
export const plugin: PluginDefinition = {
  id: 'output',
  apiVersion: '1',
  config: {
    tool: {
      compress: { schema: { enum: COMPRESS_MODES } },
      filter: {
        schema: {
          type: 'object',
          description: 'a mapping of filter stages',
          properties: Object.fromEntries(FILTER_KEYS.map((key) => [key, {}])),
          additionalProperties: false,
        },
        check: (value, problem) =>
          compileFilter(value as Record<string, unknown>).problems.forEach((message) => problem(message)),
      },
    },
  },
  register(registrar) {
    registrar.registerInit({
      deps: { processors: registrar.tokens.OutputProcessors },
      init({ processors }, context) {
        for (const processor of [cleanProcessor, filterProcessor, compressProcessor, truncateProcessor])
          processors.add(processor, context.pluginId);
      },
    });
  },
};

export default plugin;
