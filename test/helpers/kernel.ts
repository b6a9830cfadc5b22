import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Recorded } from '../../src/events/envelope.js';
import type { EventLog } from '../../src/events/log.js';
import { MemoryEventLog } from '../../src/events/memory-log.js';
import { createKernel, type Kernel } from '../../src/kernel/kernel.js';
import type { PluginDefinition } from '../../src/plugins/define-plugin.js';
import type { LoadablePlugin } from '../../src/plugins/host.js';
import { plugin as cliPlugin } from '@factorly/plugin-provider-cli';
import { tempProject } from './project.js';

export function inline(definition: PluginDefinition): LoadablePlugin {
  return {
    definition,
    source: { name: definition.id, version: '0.0.0', root: `inline:${definition.id}`, kind: 'builtin' },
  };
}

/**
 * A kernel over a temp project (or `root`, to prepare files first) and an in-memory log (or `log`,
 * one with a clock of the test's), with the cli provider and any extra plugins.
 */
export async function startTestKernel(
  yaml: string,
  plugins: PluginDefinition[] = [],
  root = tempProject(),
  log = new MemoryEventLog(),
): Promise<{ kernel: Kernel; log: MemoryEventLog }> {
  mkdirSync(join(root, '.factorly'), { recursive: true });
  writeFileSync(join(root, '.factorly', 'factorly.yaml'), yaml);
  const kernel = await createKernel({
    cwd: root,
    globalDir: `${root}/no-global`,
    log,
    inlinePlugins: [cliPlugin, ...plugins].map(inline),
  });
  return { kernel, log };
}

export async function eventsOf(log: Pick<EventLog, 'read'>): Promise<Recorded[]> {
  const out: Recorded[] = [];
  for await (const event of log.read()) out.push(event);
  return out;
}
