import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../src/contracts/tool.js';
import { createKernel, type Kernel } from '../../src/kernel/kernel.js';
import { providerPlugin } from '../helpers/instant.js';
import { inline } from '../helpers/kernel.js';
import { tempProject } from '../helpers/project.js';

// `factorly call` names the one tool it will call (`need`): the tool's provider is told as soon as
// the tools are collected, so slow preparation (a sandbox process) overlaps the rest of the start.

const CONFIG = 'tools:\n  slow_start: {type: expecting}\n  other: {type: expecting}\n';

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

/** A provider that records what it is told to expect, or throws when told. */
function expecting(told: string[], fails = false) {
  return providerPlugin({
    type: 'expecting',
    keys: [],
    execute: async (call) => ({ output: `ran ${call.tool.name} after ${told.join(',')}`, exitCode: 0 }),
    expect(tool: ToolDefinition) {
      if (fails) throw new Error('no head start today');
      told.push(tool.name);
    },
  });
}

function boot(told: string[], need?: string, fails = false): Promise<Kernel> {
  const root = tempProject();
  mkdirSync(join(root, '.factorly'), { recursive: true });
  writeFileSync(join(root, '.factorly', 'factorly.yaml'), CONFIG);
  return createKernel({
    cwd: root,
    globalDir: join(root, 'no-global'),
    inlinePlugins: [inline(expecting(told, fails))],
    ...(need ? { need: { tool: need } } : {}),
  });
}

describe('the tool a call needs, told to its provider ahead of the call', () => {
  it('tells the provider of the named tool once, before the call runs', async () => {
    const told: string[] = [];
    kernel = await boot(told, 'slow_start');
    expect(told).toEqual(['slow_start']);
    const outcome = await kernel.pipeline.call({ tool: 'slow_start', params: {}, iface: 'cli' });
    expect(outcome).toMatchObject({ status: 'success', output: 'ran slow_start after slow_start' });
  });

  it('tells nothing when no call is named, or the name is no tool', async () => {
    const told: string[] = [];
    kernel = await boot(told);
    await kernel.stop();
    kernel = await boot(told, 'no-such-tool');
    expect(told).toEqual([]);
  });

  it('goes on with the start when the provider fails to get ready: the call still runs', async () => {
    kernel = await boot([], 'slow_start', true);
    expect(await kernel.pipeline.call({ tool: 'slow_start', params: {}, iface: 'cli' })).toMatchObject({
      status: 'success',
    });
  });
});
