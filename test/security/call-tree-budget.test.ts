import { afterEach, describe, expect, it } from 'vitest';
import type { Recorded } from '../../src/events/envelope.js';
import type { Kernel } from '../../src/kernel/kernel.js';
import { plugin as quickjs } from '@factorly/plugin-engine-quickjs';
import { plugin as code } from '@factorly/plugin-provider-code';
import { plugin as shadow } from '@factorly/plugin-shadow';
import { eventsOf, startTestKernel } from '../helpers/kernel.js';

const COUNT =
  '  count:\n    type: cli\n    command: echo\n    args: ["{{n}}"]\n    parameters: [{name: n, type: integer, required: true}]\n';
// Tries `times` calls, keeping each output or the message of the error it caught.
const LOOP = (tool: string, times: number) =>
  `async function run() { const seen = []; for (let i = 0; i < ${times}; i++) { try { const r = await factorly.call(${JSON.stringify(tool)}, { n: i }); seen.push(r.output.trim() || r.error); } catch (e) { seen.push(e.message); } } return seen; }`;

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

async function start(yaml: string) {
  const started = await startTestKernel(`tools:\n${COUNT}${yaml}`, [shadow, quickjs, code]);
  kernel = started.kernel;
  return started;
}

const requestedOf = (events: Recorded[]) =>
  events.filter((e): e is Recorded<'call.requested'> => e.type === 'call.requested');

describe('a call tree shares its budgets', () => {
  it('records the call past max_calls as refused by the max-calls rule, and the script can catch the refusal', async () => {
    const { log } = await start(
      `  capped:\n    type: code\n    shadow: {max_calls: 2}\n    code: ${JSON.stringify(LOOP('count', 3))}\n`,
    );
    const outcome = await kernel!.pipeline.call({ tool: 'capped', params: {}, iface: 'mcp' });
    expect(JSON.parse(outcome.output)).toEqual([
      '0',
      '1',
      'max_calls exceeded: one run of "capped" may call at most 2 tools (shadow.max_calls)',
    ]);
    const events = await eventsOf(log);
    const refused = requestedOf(events).filter((e) => e.data.tool === 'count')[2];
    expect(refused, 'the refused call is recorded').toBeDefined();
    const story = await log.readCall(refused.data.callId);
    expect(story.find((e) => e.type === 'shadow.decided')?.data).toMatchObject({
      rule: 'max-calls',
      plugin: 'shadow',
      decision: 'deny',
    });
    expect(story.find((e) => e.type === 'call.completed')?.data).toMatchObject({
      status: 'blocked',
      blockedBy: 'deny',
    });
  });

  it('counts calls at every depth against the root’s max_calls: a nested script cannot multiply the budget', async () => {
    const yaml = `  fan:\n    type: code\n    code: ${JSON.stringify(LOOP('count', 5))}\n  outer:\n    type: code\n    shadow: {max_calls: 3}\n    code: "async function run() { return (await factorly.call('fan', {})).output; }"\n`;
    const { log } = await start(yaml);
    const outcome = await kernel!.pipeline.call({ tool: 'outer', params: {}, iface: 'mcp' });
    expect(outcome).toMatchObject({ status: 'success' });
    // fan is call 1 of outer's 3; fan's own calls 2 and 3 run, the rest are refused in outer's name.
    expect(JSON.parse(outcome.output)).toEqual([
      '0',
      '1',
      ...Array(3).fill('max_calls exceeded: one run of "outer" may call at most 3 tools (shadow.max_calls)'),
    ]);
    const counted = requestedOf(await eventsOf(log)).filter((e) => e.data.tool === 'count');
    expect(counted).toHaveLength(5);
  });

  it('refuses an inner call whose parent link the kernel did not issue: no path rebuilds a call tree (and escapes its budget)', async () => {
    await start('');
    const forged = { callId: 'c0ffee', rootId: 'c0ffee', signal: new AbortController().signal };
    await expect(
      kernel!.pipeline.call({ tool: 'count', params: { n: 1 }, iface: 'code', parent: forged }),
    ).rejects.toThrow('an inner call must pass the calling ToolCall.context as its parent, as the kernel issued it');
  });
});
