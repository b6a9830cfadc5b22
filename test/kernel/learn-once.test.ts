import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from '../../src/kernel/kernel.js';
import type { CallGateway } from '../../src/contracts/gateway.js';
import type { ToolCall } from '../../src/contracts/tool.js';
import { definePlugin } from '../../src/plugins/define-plugin.js';
import { startTestKernel } from '../helpers/kernel.js';

/**
 * A script (a tool that calls other tools) learns, before its params are recorded, the secrets every
 * tool it may call could resolve from the backends cheap to read ahead. Once per call tree: the inner
 * scripts of a tree find them learnt; a new tree reads them again.
 */
const YAML = `tools:
  outer:
    type: script
  inner:
    type: script
  keyed:
    type: cli
    command: echo
    args: ["{{counted:SET}} {{counted:UNSET}}"]
`;

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

describe('what a script could resolve is learnt once per call tree', () => {
  it('one read per reference for a script and its three inner scripts; the next tree reads again', async () => {
    const reads: string[] = [];
    let gateway: CallGateway | undefined;
    const plugin = definePlugin({
      id: 'learn-once',
      apiVersion: '1',
      register(registrar) {
        registrar.registerInit({
          deps: {
            backends: registrar.tokens.SecretBackends,
            providers: registrar.tokens.ToolProviders,
            calls: registrar.tokens.CallGateway,
          },
          init({ backends, providers, calls }, context) {
            gateway = calls;
            backends.add(
              'counted',
              {
                name: 'counted',
                readOnly: true,
                prefetch: true,
                resolve: async (key: string) => {
                  reads.push(key);
                  return key === 'SET' ? 'value-of-set' : undefined;
                },
              },
              context.pluginId,
            );
            providers.add(
              'script',
              {
                type: 'script',
                keys: [],
                callsOtherTools: true,
                async execute(call: ToolCall) {
                  if (call.tool.name === 'outer')
                    for (let i = 0; i < 3; i += 1)
                      await gateway!.call({ tool: 'inner', params: {}, iface: 'code', parent: call.context });
                  return { output: 'ok', exitCode: 0 };
                },
              },
              context.pluginId,
            );
          },
        });
      },
    });
    kernel = (await startTestKernel(YAML, [plugin])).kernel;
    expect(await kernel.pipeline.call({ tool: 'outer', params: {}, iface: 'mcp' })).toMatchObject({
      status: 'success',
    });
    // SET is read once and kept; UNSET (no value) once for the whole tree, not once per script in it.
    expect(reads.sort()).toEqual(['SET', 'UNSET']);
    await kernel.pipeline.call({ tool: 'outer', params: {}, iface: 'mcp' });
    expect(reads.sort()).toEqual(['SET', 'SET', 'UNSET', 'UNSET']);
  });
});
