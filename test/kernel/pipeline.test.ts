import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from '../../src/kernel/kernel.js';
import type { ShadowRule } from '../../src/contracts/extensions.js';
import { definePlugin } from '../../src/plugins/define-plugin.js';
import { verifyChain } from '../../src/events/verify.js';
import { eventsOf, startTestKernel } from '../helpers/kernel.js';
import { rulePlugin } from '../helpers/rule-plugin.js';

const YAML = `tools:
  greet:
    type: cli
    command: echo
    args: ["hi {{name}}", "{{times}}"]
    parameters:
      - {name: name, required: true}
      - {name: times, type: integer, min: 1, max: 5}
  fail:
    type: cli
    command: sh
    args: ["-c", "echo partial; echo boom >&2; exit 3"]
  warn:
    type: cli
    command: sh
    args: ["-c", "echo done; echo careful >&2"]
  slow:
    type: cli
    command: sleep
    args: ["5"]
    timeout: 200ms
  stdin:
    type: cli
    command: cat
    stdin: "{{text}}"
`;

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

describe('call pipeline', () => {
  it('runs a cli tool and records requested, coerced and completed events in a verified chain', async () => {
    const started = await startTestKernel(YAML);
    kernel = started.kernel;
    const outcome = await kernel.pipeline.call({ tool: 'greet', params: { name: 'Ada', times: '2' }, iface: 'cli' });
    expect(outcome).toMatchObject({ status: 'success', output: 'hi Ada 2\n', exitCode: 0 });
    const events = await eventsOf(started.log);
    expect(events.map((e) => e.type)).toEqual([
      'config.recorded',
      'config.loaded',
      'plugin.loaded',
      'call.requested',
      'call.params_coerced',
      'call.completed',
    ]);
    expect(events[4].data).toMatchObject({ original: { times: '2' }, coerced: { name: 'Ada', times: 2 } });
    expect(events[5].data).toMatchObject({ status: 'success', exitCode: 0, output: { text: 'hi Ada 2\n', bytes: 9 } });
    expect((await verifyChain(started.log.read())).ok).toBe(true);
  });

  it('blocks a missing required parameter and records only the blocked-call events', async () => {
    const started = await startTestKernel(YAML);
    kernel = started.kernel;
    const outcome = await kernel.pipeline.call({ tool: 'greet', params: {}, iface: 'cli' });
    expect(outcome).toMatchObject({
      status: 'blocked',
      exitCode: 1,
      error: 'parameter validation failed for "greet": required parameter "name" missing',
    });
    const calls = (await eventsOf(started.log)).filter((e) => e.type.startsWith('call.'));
    expect(calls.map((e) => e.type)).toEqual(['call.requested', 'call.completed']);
    expect(calls[1].data).toMatchObject({ status: 'blocked', blockedBy: 'invalid' });
  });

  it('blocks a non-integer and an out-of-range integer with the reasons', async () => {
    kernel = (await startTestKernel(YAML)).kernel;
    const bad = await kernel.pipeline.call({ tool: 'greet', params: { name: 'x', times: '2.5' }, iface: 'cli' });
    expect(bad.error).toBe('parameter validation failed for "greet": times: expected integer, got "2.5"');
    const big = await kernel.pipeline.call({ tool: 'greet', params: { name: 'x', times: 9 }, iface: 'cli' });
    expect(big.error).toBe('parameter validation failed for "greet": times: must be at most 5, got 9');
  });

  it('suggests close names for an unknown tool and records it as blocked', async () => {
    const started = await startTestKernel(YAML);
    kernel = started.kernel;
    const outcome = await kernel.pipeline.call({ tool: 'gret', params: {}, iface: 'cli' });
    expect(outcome.error).toBe('tool "gret" not found; did you mean "greet"?');
    const last = (await eventsOf(started.log)).at(-1)!;
    expect(last.data).toMatchObject({ status: 'blocked', blockedBy: 'unknown_tool' });
  });

  it('keeps the exit code, stdout and stderr of a failing command', async () => {
    kernel = (await startTestKernel(YAML)).kernel;
    const outcome = await kernel.pipeline.call({ tool: 'fail', params: {}, iface: 'cli' });
    expect(outcome).toMatchObject({ status: 'error', exitCode: 3, output: 'partial\n', error: 'boom\n' });
  });

  it('treats stderr with exit 0 as a success with diagnostics', async () => {
    kernel = (await startTestKernel(YAML)).kernel;
    const outcome = await kernel.pipeline.call({ tool: 'warn', params: {}, iface: 'cli' });
    expect(outcome).toMatchObject({ status: 'success', exitCode: 0, output: 'done\n', diagnostics: 'careful\n' });
    expect(outcome.error).toBeUndefined();
  });

  it('stops a command at its timeout: status timeout, exit code 124', async () => {
    const started = await startTestKernel(YAML);
    kernel = started.kernel;
    const outcome = await kernel.pipeline.call({ tool: 'slow', params: {}, iface: 'cli' });
    expect(outcome).toMatchObject({ status: 'timeout', exitCode: 124, error: 'command timed out after 200ms' });
    const completed = (await eventsOf(started.log)).find((event) => event.type === 'call.completed')!.data;
    expect(completed).toMatchObject({ status: 'timeout', exitCode: 124 });
  });

  it('records a call its caller cancels as cancelled (exit code 130), not as a timeout', async () => {
    const started = await startTestKernel(YAML);
    kernel = started.kernel;
    const caller = new AbortController();
    const call = kernel.pipeline.call({ tool: 'slow', params: {}, iface: 'cli', signal: caller.signal });
    setImmediate(() => caller.abort(new Error('the caller gave up')));
    expect(await call).toMatchObject({ status: 'cancelled', exitCode: 130 });
    const completed = (await eventsOf(started.log)).find((event) => event.type === 'call.completed')!.data;
    expect(completed).toMatchObject({ status: 'cancelled', exitCode: 130 });
  });

  it('pipes the stdin template and passes params as single arguments (no shell)', async () => {
    kernel = (await startTestKernel(YAML)).kernel;
    const text = 'a; rm -rf / $(whoami) `id`';
    expect((await kernel.pipeline.call({ tool: 'stdin', params: { text }, iface: 'cli' })).output).toBe(text);
    expect((await kernel.pipeline.call({ tool: 'greet', params: { name: '$(id)' }, iface: 'cli' })).output).toBe(
      'hi $(id)\n',
    );
  });

  it('records each shadow decision and blocks on deny', async () => {
    const rule: ShadowRule = {
      name: 'no-greet',
      order: 1,
      evaluate: async (c) => ({ decision: c.tool.name === 'greet' ? 'deny' : 'allow', reason: 'greeting is off' }),
    };
    const started = await startTestKernel(YAML, [rulePlugin(rule)]);
    kernel = started.kernel;
    const outcome = await kernel.pipeline.call({ tool: 'greet', params: { name: 'x' }, iface: 'cli' });
    expect(outcome).toMatchObject({ status: 'blocked', error: 'greeting is off' });
    const types = (await eventsOf(started.log))
      .map((e) => e.type)
      .filter((t) => !t.startsWith('plugin.') && !t.startsWith('config.'));
    expect(types).toEqual(['call.requested', 'shadow.decided', 'call.completed']);
  });

  it('fails closed when a rule throws', async () => {
    const rule: ShadowRule = {
      name: 'broken',
      order: 1,
      evaluate: async () => {
        throw new Error('kaput');
      },
    };
    kernel = (await startTestKernel(YAML, [rulePlugin(rule)])).kernel;
    const outcome = await kernel.pipeline.call({ tool: 'warn', params: {}, iface: 'cli' });
    expect(outcome).toMatchObject({ status: 'blocked', error: 'rule "broken" failed (failing closed): kaput' });
  });

  it('denies a confirm decision when no confirm channel is installed', async () => {
    const rule: ShadowRule = {
      name: 'ask',
      order: 1,
      evaluate: async () => ({ decision: 'confirm', reason: 'needs a human' }),
    };
    kernel = (await startTestKernel(YAML, [rulePlugin(rule)])).kernel;
    const outcome = await kernel.pipeline.call({ tool: 'warn', params: {}, iface: 'cli' });
    expect(outcome.error).toBe('tool "warn" requires confirmation but no confirm channel is available');
  });

  it('runs output processors over output, error and diagnostics before recording them', async () => {
    const redact = definePlugin({
      id: 'test-redact',
      apiVersion: '1',
      register(reg) {
        reg.registerInit({
          deps: { processors: reg.tokens.OutputProcessors },
          init: ({ processors }, ctx) =>
            processors.add(
              { name: 'redact', order: 1, process: (text) => text.replace(/done|careful|boom/g, '[X]') },
              ctx.pluginId,
            ),
        });
      },
    });
    const started = await startTestKernel(YAML, [redact]);
    kernel = started.kernel;
    expect(await kernel.pipeline.call({ tool: 'warn', params: {}, iface: 'cli' })).toMatchObject({
      output: '[X]\n',
      diagnostics: '[X]\n',
    });
    expect(await kernel.pipeline.call({ tool: 'fail', params: {}, iface: 'cli' })).toMatchObject({ error: '[X]\n' });
    const stored = (await eventsOf(started.log))
      .filter((e) => e.type === 'call.completed')
      .map((e) => JSON.stringify(e.data));
    expect(stored.join()).not.toMatch(/done|careful|boom/);
  });

  it('publishes every appended event on the bus after it is stored', async () => {
    const started = await startTestKernel(YAML);
    kernel = started.kernel;
    const seen: number[] = [];
    kernel.bus.onAny((event) => seen.push(event.seq));
    await kernel.pipeline.call({ tool: 'warn', params: {}, iface: 'cli' });
    expect(seen).toEqual((await eventsOf(started.log)).map((e) => e.seq));
  });

  it('writes the boot record once per distinct boot', async () => {
    const started = await startTestKernel(YAML);
    kernel = started.kernel;
    await kernel.pipeline.call({ tool: 'warn', params: {}, iface: 'cli' });
    await kernel.pipeline.call({ tool: 'warn', params: {}, iface: 'cli' });
    const boots = (await eventsOf(started.log)).filter((e) => e.type === 'config.loaded');
    expect(boots).toHaveLength(1);
  });
});
