import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from '../../src/kernel/kernel.js';
import { definePlugin, type PluginDefinition } from '../../src/plugins/define-plugin.js';
import { startTestKernel } from '../helpers/kernel.js';
import { tempProject } from '../helpers/project.js';

/** A plugin with a block of its own (`greeter:`), a key on every tool (`tone`), recording what init and reloads hand it. */
function greeter(seen: unknown[]): PluginDefinition {
  return definePlugin({
    id: 'greeter',
    apiVersion: '1',
    config: {
      key: 'greeter',
      schema: {
        type: 'object',
        properties: { greeting: { type: 'string', minLength: 1 }, times: { type: 'integer', minimum: 1, default: 1 } },
        required: ['greeting'],
        additionalProperties: false,
      },
      tool: { tone: { schema: { enum: ['warm', 'dry'] } } },
    },
    register(reg) {
      reg.registerInit({
        deps: {},
        init: (_deps, context) => {
          seen.push(context.config);
          context.onConfig((value) => void seen.push(value));
        },
      });
    },
  });
}

const started: Kernel[] = [];
afterEach(async () => {
  for (const kernel of started.splice(0)) await kernel.stop();
});

async function start(yaml: string, plugins: PluginDefinition[], root?: string): Promise<Kernel> {
  const { kernel } = await startTestKernel(yaml, plugins, root);
  started.push(kernel);
  return kernel;
}

const refusal = (yaml: string, plugins: PluginDefinition[]) =>
  startTestKernel(yaml, plugins).then(
    () => 'loaded',
    (error: Error) => error.message,
  );

describe('config blocks plugins own', () => {
  it('hands a plugin its block, checked against its schema with the defaults it declares, before it initialises', async () => {
    const seen: unknown[] = [];
    const kernel = await start('greeter: {greeting: hello}\ntools:\n  t: {type: cli, command: echo, tone: warm}\n', [
      greeter(seen),
    ]);
    expect(seen).toEqual([{ greeting: 'hello', times: 1 }]);
    expect(kernel.registry.get('t')!.settings).toEqual({ tone: 'warm' });
  });

  it('names the file and line of every mistake in a block or a tool key of a plugin', async () => {
    expect(
      await refusal('greeter:\n  greeting: ""\n  tims: 2\ntools:\n  t: {type: cli, command: echo, tone: loud}\n', [
        greeter([]),
      ]),
    ).toBe(
      [
        'config: unknown key "greeter.tims"; did you mean "times"? (.factorly/factorly.yaml:3)',
        'config: invalid greeter.greeting: "" must NOT have fewer than 1 characters (.factorly/factorly.yaml:2)',
      ].join('\n'),
    );
    expect(
      await refusal('greeter: {greeting: hi}\ntools:\n  t: {type: cli, command: echo, tone: loud}\n', [greeter([])]),
    ).toBe('config: tool "t" has an invalid tone: "loud" is not one of warm, dry (.factorly/factorly.yaml:3)');
    expect(await refusal('greeter: {}\n', [greeter([])])).toBe(
      'config: invalid greeter: is missing "greeting" (.factorly/factorly.yaml:1)',
    );
  });

  it('refuses a key no installed plugin declares, suggesting the ones that are', async () => {
    expect(await refusal('greetr: {greeting: hi}\n', [greeter([])])).toBe(
      'config: unknown top-level key "greetr"; did you mean "greeter"? (.factorly/factorly.yaml:1)',
    );
    expect(await refusal('greeter: {greeting: hi}\n', [])).toContain('config: unknown top-level key "greeter"');
  });

  it('hands the block again when a reload changed it, and not when it did not', async () => {
    const seen: unknown[] = [];
    const root = tempProject();
    const kernel = await start('greeter: {greeting: hello}\n', [greeter(seen)], root);
    writeFileSync(
      join(root, '.factorly', 'factorly.yaml'),
      'greeter: {greeting: hello}\n# a comment changes the text, not the block\n',
    );
    expect(await kernel.reload()).toBe(true);
    writeFileSync(join(root, '.factorly', 'factorly.yaml'), 'greeter: {greeting: bonjour, times: 3}\n');
    expect(await kernel.reload()).toBe(true);
    expect(seen).toEqual([
      { greeting: 'hello', times: 1 },
      { greeting: 'bonjour', times: 3 },
    ]);
  });

  it("refuses a plugin that claims another plugin's block or one of the kernel's keys, naming both", async () => {
    const rival = definePlugin({
      id: 'rival',
      apiVersion: '1',
      config: { key: 'greeter' },
      register: (reg) => reg.registerInit({ deps: {}, init: () => undefined }),
    });
    const greedy = definePlugin({
      id: 'greedy',
      apiVersion: '1',
      config: { tool: { timeout: { schema: {} } } },
      register: (reg) => reg.registerInit({ deps: {}, init: () => undefined }),
    });
    const kernel = await start('greeter: {greeting: hi}\n', [greeter([]), rival, greedy]);
    expect(kernel.plugins.failed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: 'rival',
          code: 'EXTENSION_CONFLICT',
          reason: 'config top-level key "greeter" is declared twice: by plugin "greeter" and by plugin "rival"',
        }),
        expect.objectContaining({
          id: 'greedy',
          code: 'PLUGIN_INVALID',
          reason: 'plugin "greedy" declares the config\'s tool key "timeout", which is factorly\'s own',
        }),
      ]),
    );
  });

  it("reports a schema that is not JSON Schema as the plugin's mistake", async () => {
    const broken = definePlugin({
      id: 'broken',
      apiVersion: '1',
      config: { key: 'broken', schema: { type: 'nonsense' } },
      register: (reg) => reg.registerInit({ deps: {}, init: () => undefined }),
    });
    expect(await refusal('broken: 1\n', [broken])).toMatch(
      /^config: invalid broken: plugin "broken" declares a config schema that is not valid JSON Schema: /,
    );
  });
});
