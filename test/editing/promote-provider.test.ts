import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolProvider } from '../../src/contracts/tool.js';
import type { Kernel } from '../../src/kernel/kernel.js';
import { promote } from '../../src/editing/promote.js';
import { definePlugin } from '../../src/plugins/define-plugin.js';
import { startTestKernel } from '../helpers/kernel.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** A provider of another kind of script (a "recipe": lines echoed back), which knows how to promote its runs, or not. */
function recipes(promotes: boolean) {
  const provider: ToolProvider = {
    type: 'recipe',
    keys: ['steps'],
    sourceOf: (_tool, params) =>
      typeof params.steps === 'string'
        ? { sha: sha(params.steps), language: 'recipe', source: params.steps }
        : undefined,
    execute: async (call) => ({ output: String(call.params.steps ?? call.tool.spec.steps), exitCode: 0 }),
    ...(promotes ? { promote: (run) => ({ type: 'recipe', spec: { steps: run.source.source }, parameters: [] }) } : {}),
  };
  return definePlugin({
    id: 'recipes',
    apiVersion: '1',
    register: (reg) =>
      reg.registerInit({
        deps: { providers: reg.tokens.ToolProviders },
        init: ({ providers }, ctx) => providers.add('recipe', provider, ctx.pluginId),
      }),
  });
}

const YAML = 'tools:\n  cook: {type: recipe, parameters: [{name: steps, type: text}]}\n';
let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

describe("promotion asks the provider of the run's tool", () => {
  it('writes the entry a provider makes of its run, whatever its type', async () => {
    kernel = (await startTestKernel(YAML, [recipes(true)])).kernel;
    const steps = 'chop\nfry\n';
    await kernel.pipeline.call({ tool: 'cook', params: { steps }, iface: 'cli' });
    const plan = await promote(kernel, { fromSha: sha(steps).slice(0, 8), name: 'dinner' });
    expect(plan).toMatchObject({
      name: 'dinner',
      file: '.factorly/dinner.yaml',
      run: { tool: 'cook', source: { source: steps } },
    });
    expect(readFileSync(join(kernel.paths.baseDir, plan.file), 'utf8')).toContain(
      'dinner:\n  type: recipe\n  description: Promoted from cook run on',
    );
    expect(await kernel.reload()).toBe(true);
    expect((await kernel.pipeline.call({ tool: 'dinner', params: {}, iface: 'cli' })).output).toBe(steps);
  });

  it('says so when the provider does not promote its runs', async () => {
    kernel = (await startTestKernel(YAML, [recipes(false)])).kernel;
    await kernel.pipeline.call({ tool: 'cook', params: { steps: 'boil' }, iface: 'cli' });
    await expect(promote(kernel, { fromSha: sha('boil').slice(0, 8), name: 'tea' })).rejects.toThrow(
      'a run of "cook" cannot be promoted: the provider of type "recipe" does not promote its runs',
    );
  });
});
