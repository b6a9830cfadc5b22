import type { PluginDefinition } from 'factorly';
import { afterEach } from 'vitest';
import type { Kernel } from 'factorly/testing';
import type { MemoryEventLog } from 'factorly/events';
import { startTestKernel } from '../../../test/helpers/kernel.js';
import { plugin as quickjs } from '@factorly/plugin-engine-quickjs';
import { plugin as ses } from '@factorly/plugin-engine-ses';
import { plugin as code } from '../src/plugin.js';
import { plugin as shadow } from '@factorly/plugin-shadow';

const started: Kernel[] = [];

afterEach(async () => {
  for (const kernel of started.splice(0)) await kernel.stop();
});

/** A test kernel with both official engines, the code provider, the cli provider and the shadow rules (max_calls); stopped after the test. */
export async function startCodeKernel(
  yaml: string,
  extra: PluginDefinition[] = [],
  root?: string,
): Promise<{ kernel: Kernel; log: MemoryEventLog }> {
  const started_ = await startTestKernel(yaml, [quickjs, ses, code, shadow, ...extra], root);
  started.push(started_.kernel);
  return started_;
}

/** A kernel call as the CLI makes it. */
export function callTool(kernel: Kernel, tool: string, params: Record<string, unknown> = {}, agentId?: string) {
  return kernel.pipeline.call({ tool, params: params as never, iface: 'cli', agentId });
}

/** The seed's first example: a code tool that greets by name (default world). */
export const GREET = `tools:
  greet:
    type: code
    description: Greet someone by name
    parameters:
      - name: name
        required: true
        default: world
    code: |
      async function run(params) {
        return "hello " + params.name;
      }
`;
