import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolProvider } from '../../src/contracts/tool.js';
import type { Kernel } from '../../src/kernel/kernel.js';
import { promote } from '../../src/editing/promote.js';
import { definePlugin } from '../../src/plugins/define-plugin.js';
import { startTestKernel } from '../helpers/kernel.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** A provider of another kind of script (a "recipe": lines echoed back), which knows how to promote its runs, or not. */
function recipes(promotes: boolean, fileKeys?: Record<string, string>) {
  const provider: ToolProvider = {
    type: 'recipe',
    keys: ['steps', ...Object.keys(fileKeys ?? {})],
    fileKeys,
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

  it("with toFile, writes the script into a file of its own beside the YAML, named by the provider's file key", async () => {
    kernel = (await startTestKernel(YAML, [recipes(true, { steps_file: 'steps' })])).kernel;
    const steps = 'chop\nfry\n';
    await kernel.pipeline.call({ tool: 'cook', params: { steps }, iface: 'cli' });
    const request = { fromSha: sha(steps).slice(0, 8), name: 'dinner', toFile: true };
    const plan = await promote(kernel, request);
    expect(plan.script).toEqual({ file: '.factorly/dinner.txt', text: steps });
    expect(readFileSync(join(kernel.paths.baseDir, '.factorly', 'dinner.txt'), 'utf8')).toBe(steps);
    const yaml = readFileSync(join(kernel.paths.baseDir, plan.file), 'utf8');
    expect(yaml).toContain('  steps_file: dinner.txt\n');
    expect(yaml).not.toContain('chop');
    expect(await kernel.reload()).toBe(true);
    expect((await kernel.pipeline.call({ tool: 'dinner', params: {}, iface: 'cli' })).output).toBe(steps);
    await expect(promote(kernel, request)).rejects.toThrow(
      'tool "dinner" already exists; pass --overwrite to replace it; .factorly/dinner.txt already exists; pass --overwrite to replace it',
    );
  });

  it('refuses toFile for a type whose provider keeps no script in a file, writing nothing', async () => {
    kernel = (await startTestKernel(YAML, [recipes(true)])).kernel;
    await kernel.pipeline.call({ tool: 'cook', params: { steps: 'boil' }, iface: 'cli' });
    await expect(promote(kernel, { fromSha: sha('boil').slice(0, 8), name: 'tea', toFile: true })).rejects.toThrow(
      'tools of type "recipe" cannot keep their script in a file of its own',
    );
    expect(existsSync(join(kernel.paths.baseDir, '.factorly', 'tea.yaml'))).toBe(false);
  });

  it('says so when the provider does not promote its runs', async () => {
    kernel = (await startTestKernel(YAML, [recipes(false)])).kernel;
    await kernel.pipeline.call({ tool: 'cook', params: { steps: 'boil' }, iface: 'cli' });
    await expect(promote(kernel, { fromSha: sha('boil').slice(0, 8), name: 'tea' })).rejects.toThrow(
      'a run of "cook" cannot be promoted: the provider of type "recipe" does not promote its runs',
    );
  });
});
