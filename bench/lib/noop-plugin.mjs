// The inline plugins the in-process benches load: a `noop` tool type, and the wrapping that makes a
// plugin definition loadable without a package.

/** A plugin adding tool type `noop`, which answers with `execute` (default: at once). */
export function noopPlugin(execute = async () => ({ output: 'ok', exitCode: 0 })) {
  return {
    id: 'bench-noop',
    apiVersion: '1',
    register: (r) =>
      r.registerInit({
        deps: { providers: r.tokens.ToolProviders },
        init: ({ providers }, ctx) => providers.add('noop', { type: 'noop', keys: [], execute }, ctx.pluginId),
      }),
  };
}

export const inline = (definition) => ({
  definition,
  source: { name: definition.id, version: '0', root: 'inline', kind: 'core' },
});
