import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from 'factorly/testing';
import { startTestKernel } from '../../../test/helpers/kernel.js';
import { plugin as mcpPlugin } from '../src/plugin.js';

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

async function served(keys: string): Promise<string[]> {
  const started = await startTestKernel(
    `tools:
  ev:
    type: mcp
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(EVERYTHING)}, stdio]
${keys}`,
    [mcpPlugin],
  );
  kernel = started.kernel;
  return kernel.registry.all().map((tool) => tool.name);
}

describe('tools: and exclude: choose what an upstream contributes', () => {
  it('tools: takes only the names and globs listed; exclude: leaves out what its globs match', async () => {
    const names = await served(`    tools: [echo, "get-*"]\n    exclude: ["get-tiny*", get-env]\n`);
    expect(names).toContain('ev.echo');
    expect(names).toContain('ev.get-sum');
    expect(names).not.toContain('ev.get-tiny-image');
    expect(names).not.toContain('ev.get-env');
    expect(names.filter((name) => name.startsWith('ev.') && name !== 'ev.echo' && !name.startsWith('ev.get-'))).toEqual(
      [],
    );
    // A tool left out is no tool at all: a call is refused as unknown, not denied.
    const call = await kernel!.pipeline.call({ tool: 'ev.get-tiny-image', params: {}, iface: 'cli' });
    expect(call).toMatchObject({ status: 'blocked' });
    expect(call.error).toContain('tool "ev.get-tiny-image" not found');
  });

  it('exclude: alone keeps every other tool', async () => {
    const names = await served(`    exclude: [echo]\n`);
    expect(names).not.toContain('ev.echo');
    expect(names).toContain('ev.get-sum');
  });

  it('a list that is not one of names is a config error naming the key', async () => {
    await expect(served(`    tools: echo\n`)).rejects.toThrow(/"tools" that is not a list of tool names or globs/);
    await expect(served(`    exclude: [1]\n`)).rejects.toThrow(/"exclude" that is not a list of tool names or globs/);
  });
});
