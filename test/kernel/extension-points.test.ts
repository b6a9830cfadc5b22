import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from '../../src/kernel/kernel.js';
import { CallSecretScope } from '../../src/kernel/secret-scope.js';
import { KeyedRegistry } from '../../src/kernel/registries.js';
import type { SecretBackend } from '../../src/contracts/extensions.js';
import type { CallGateway } from '../../src/contracts/gateway.js';
import type { ToolDefinition } from '../../src/contracts/tool.js';
import { definePlugin } from '../../src/plugins/define-plugin.js';
import { startTestKernel } from '../helpers/kernel.js';

function backends(values: Record<string, string>): KeyedRegistry<SecretBackend> {
  const registry = new KeyedRegistry<SecretBackend>('secret backend');
  registry.add('vault', { name: 'vault', readOnly: false, resolve: async (key) => values[key] }, 'test');
  return registry;
}

describe('secret scope', () => {
  it('resolves references, applies defaults, keeps escapes and unknown backends, and remembers values', async () => {
    const scope = new CallSecretScope(backends({ TOKEN: 's3cr3t' }));
    const text = await scope.resolve('Bearer {{vault:TOKEN}} {{vault:NONE|fallback}} \\{{vault:TOKEN}} {{op:thing}}');
    expect(text).toBe('Bearer s3cr3t fallback {{vault:TOKEN}} {{op:thing}}');
    expect([...scope.resolved()]).toEqual([['vault:TOKEN', 's3cr3t']]);
  });

  it('learns what it can before the values are used, skips what it cannot, and reads each secret once', async () => {
    const reads: string[] = [];
    const registry = new KeyedRegistry<SecretBackend>('secret backend');
    registry.add(
      'vault',
      {
        name: 'vault',
        readOnly: false,
        resolve: async (key) => (
          reads.push(key),
          key === 'BROKEN' ? Promise.reject(new Error('locked')) : { K: 'v1' }[key]
        ),
      },
      'test',
    );
    const scope = new CallSecretScope(registry);
    await scope.learn(['vault:K', 'vault:GONE', 'vault:BROKEN']);
    expect([...scope.resolved()]).toEqual([['vault:K', 'v1']]);
    expect(await scope.resolve('a {{vault:K}} b')).toBe('a v1 b');
    expect(reads.sort()).toEqual(['BROKEN', 'GONE', 'K']);
  });

  it('names the missing reference, never a value', async () => {
    const scope = new CallSecretScope(backends({}));
    await expect(scope.resolve('{{vault:GONE}}')).rejects.toThrow(
      'secret {{vault:GONE}} is not set in the vault backend',
    );
  });
});

const sourced = (name: string): ToolDefinition => ({
  name,
  type: 'cli',
  description: 'from a source',
  hidden: false,
  parameters: [],
  spec: { command: 'echo', args: [name] },
  source: { file: 'plugin:test', line: 0 },
});

describe('tool sources, expansion and the call gateway', () => {
  let kernel: Kernel | undefined;
  afterEach(async () => kernel?.stop());

  it('serves tools contributed by a plugin and lets plugins call through the gateway', async () => {
    let gateway: CallGateway | undefined;
    const plugin = definePlugin({
      id: 'test-source',
      apiVersion: '1',
      register(reg) {
        reg.registerInit({
          deps: { sources: reg.tokens.ToolSources, calls: reg.tokens.CallGateway },
          init({ sources, calls }, ctx) {
            sources.add({ name: 'extra', tools: () => [sourced('extra.one')] }, ctx.pluginId);
            gateway = calls;
            expect(() => calls.tools()).toThrow('tools cannot be called before the kernel is ready');
          },
        });
      },
    });
    kernel = (await startTestKernel('tools:\n  a: {type: cli, command: echo, args: [a]}\n', [plugin])).kernel;
    expect(kernel.registry.all().map((t) => t.name)).toEqual(['a', 'extra.one']);
    const outcome = await gateway!.call({ tool: 'extra.one', params: {}, iface: 'code' });
    expect(outcome).toMatchObject({ status: 'success', output: 'extra.one\n' });
  });

  it('refuses a source tool whose name a config tool already has', async () => {
    const plugin = definePlugin({
      id: 'test-clash',
      apiVersion: '1',
      register(reg) {
        reg.registerInit({
          deps: { sources: reg.tokens.ToolSources },
          init: ({ sources }, ctx) => sources.add({ name: 's', tools: () => [sourced('a')] }, ctx.pluginId),
        });
      },
    });
    await expect(startTestKernel('tools:\n  a: {type: cli, command: echo}\n', [plugin])).rejects.toThrow(
      'config: duplicate tool "a" (found again in plugin:test:0; first in .factorly/factorly.yaml:2)',
    );
  });
});
