import { afterEach, describe, expect, it } from 'vitest';
import type { ShadowRule } from 'factorly';
import type { Kernel } from 'factorly/testing';
import { contribute, decisions, ScriptedChannel, shadowKernel, storyOf } from './helpers.js';

const YAML = `tools:
  drop:
    type: cli
    command: echo
    args: [dropped]
    shadow: {deny: true}
  deploy:
    type: cli
    command: echo
    args: ["deploy {{env}}"]
    shadow: {confirm: true, timeout: 1s}
  ping:
    type: cli
    command: echo
    args: [pong]
    shadow: {rate_limit: 3/min}
  look:
    type: cli
    command: echo
    args: ["{{q}}"]
`;

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

describe('deny and confirm', () => {
  it('denies a tool under shadow.deny and records why', async () => {
    const started = await shadowKernel(YAML);
    kernel = started.kernel;
    const outcome = await kernel.pipeline.call({ tool: 'drop', params: {}, iface: 'cli' });
    expect(outcome).toMatchObject({ status: 'blocked', exitCode: 1, error: 'tool "drop" is denied by shadow policy' });
    expect(await storyOf(started.log, outcome.callId)).toEqual([
      'call.requested',
      'shadow.decided:deny:deny',
      'call.completed',
    ]);
    expect(await decisions(started.log, outcome.callId)).toEqual([
      {
        callId: outcome.callId,
        rule: 'deny',
        plugin: 'shadow',
        decision: 'deny',
        reason: 'tool "drop" is denied by shadow policy',
      },
    ]);
  });

  it('runs a confirmed call once approved, after recording the request and the answer', async () => {
    const channel = new ScriptedChannel('test', [{ approved: true, by: 'ada' }]);
    const started = await shadowKernel(YAML, [contribute('chan', { channels: [channel] })]);
    kernel = started.kernel;
    const outcome = await kernel.pipeline.call({ tool: 'deploy', params: { env: 'prod' }, iface: 'mcp' });
    expect(outcome).toMatchObject({ status: 'success', output: 'deploy prod\n' });
    expect(await storyOf(started.log, outcome.callId)).toEqual([
      'call.requested',
      'shadow.decided:confirm:confirm',
      'shadow.decided:loop-detection:allow',
      'confirm.requested',
      'confirm.resolved',
      'call.completed',
    ]);
    const resolved = (await started.log.readCall(outcome.callId)).find((e) => e.type === 'confirm.resolved');
    expect(resolved?.data).toEqual({ callId: outcome.callId, channel: 'test', approved: true, by: 'ada' });
    expect(channel.asked[0]).toMatchObject({
      tool: 'deploy',
      params: { env: 'prod' },
      iface: 'mcp',
      reason: 'tool "deploy" requires confirmation',
    });
  });

  it('blocks a declined call with the reference message', async () => {
    const started = await shadowKernel(YAML, [
      contribute('chan', { channels: [new ScriptedChannel('test', [{ approved: false }])] }),
    ]);
    kernel = started.kernel;
    const outcome = await kernel.pipeline.call({ tool: 'deploy', params: { env: 'prod' }, iface: 'mcp' });
    expect(outcome).toMatchObject({ status: 'blocked', error: 'tool "deploy": confirmation declined' });
    const completed = (await started.log.readCall(outcome.callId)).at(-1);
    expect(completed?.data).toMatchObject({ status: 'blocked', blockedBy: 'confirm' });
  });

  it('denies when nobody answers within shadow.timeout, and aborts the waiting channel', async () => {
    const channel = new ScriptedChannel('silent', [undefined]);
    const started = await shadowKernel(YAML, [contribute('chan', { channels: [channel] })]);
    kernel = started.kernel;
    const outcome = await kernel.pipeline.call({ tool: 'deploy', params: { env: 'prod' }, iface: 'mcp' });
    expect(outcome.error).toBe('tool "deploy": confirmation timed out after 1s (no answer counts as declined)');
    const resolved = (await started.log.readCall(outcome.callId)).find((e) => e.type === 'confirm.resolved');
    expect(resolved?.data).toMatchObject({ channel: 'timeout', approved: false });
    expect(channel.aborted).toBe(1);
  });

  it('asks every channel, takes the first answer and aborts the rest', async () => {
    const slow = new ScriptedChannel('slow', [{ approved: false }], 300);
    const fast = new ScriptedChannel('fast', [{ approved: true, by: 'web' }], 10);
    const started = await shadowKernel(YAML, [contribute('chan', { channels: [slow, fast] })]);
    kernel = started.kernel;
    const outcome = await kernel.pipeline.call({ tool: 'deploy', params: { env: 'dev' }, iface: 'ui' });
    expect(outcome.status).toBe('success');
    const events = await started.log.readCall(outcome.callId);
    const requested = events.filter((e) => e.type === 'confirm.requested');
    // Each request says how long it waits (the rule's timeout, 1s); the channels get when it ends.
    expect(requested.map((e) => e.data)).toEqual([
      { callId: outcome.callId, channel: 'slow', timeoutMs: 1000 },
      { callId: outcome.callId, channel: 'fast', timeoutMs: 1000 },
    ]);
    const left = slow.asked[0].expiresAt! - Date.parse(requested[0].at);
    expect(left).toBeGreaterThan(800);
    expect(left).toBeLessThanOrEqual(1000);
    expect(fast.asked[0].expiresAt).toBe(slow.asked[0].expiresAt);
    expect(events.find((e) => e.type === 'confirm.resolved')?.data).toMatchObject({ channel: 'fast', approved: true });
    expect(slow.aborted).toBe(1);
  });

  it('binds an approval to one exact call: the next identical call asks again', async () => {
    const channel = new ScriptedChannel('test', [{ approved: true }, { approved: false }]);
    const started = await shadowKernel(YAML, [contribute('chan', { channels: [channel] })]);
    kernel = started.kernel;
    const first = await kernel.pipeline.call({ tool: 'deploy', params: { env: 'prod' }, iface: 'mcp' });
    const second = await kernel.pipeline.call({ tool: 'deploy', params: { env: 'prod' }, iface: 'mcp' });
    expect([first.status, second.status]).toEqual(['success', 'blocked']);
    expect(channel.asked.map((r) => r.callId)).toEqual([first.callId, second.callId]);
    expect(channel.asked[0].fingerprint).toBe(channel.asked[1].fingerprint);
    expect(channel.asked[0].fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it('asks nobody when a later rule blocks the call anyway', async () => {
    const channel = new ScriptedChannel('test', [{ approved: true }]);
    const veto: ShadowRule = { name: 'veto', order: 100, evaluate: () => ({ decision: 'deny', reason: 'vetoed' }) };
    kernel = (await shadowKernel(YAML, [contribute('chan', { channels: [channel], rules: [veto] })])).kernel;
    const outcome = await kernel.pipeline.call({ tool: 'deploy', params: { env: 'prod' }, iface: 'mcp' });
    expect(outcome.error).toBe('vetoed');
    expect(channel.asked).toEqual([]);
  });

  it('skips channels that do not accept the request (the CLI prompt only serves `factorly call`)', async () => {
    kernel = (await shadowKernel(YAML)).kernel;
    const outcome = await kernel.pipeline.call({ tool: 'deploy', params: { env: 'prod' }, iface: 'mcp' });
    expect(outcome.error).toBe('tool "deploy" requires confirmation but no confirm channel is available');
  });
});

describe('rate limits', () => {
  it('lets N calls through per window, then blocks with the reset time, per agent by default', async () => {
    const started = await shadowKernel(YAML);
    kernel = started.kernel;
    const call = (agentId?: string) => kernel!.pipeline.call({ tool: 'ping', params: {}, iface: 'mcp', agentId });
    const outcomes = [await call(), await call(), await call(), await call()];
    expect(outcomes.map((o) => o.status)).toEqual(['success', 'success', 'success', 'blocked']);
    expect(outcomes[3].error).toMatch(/^tool "ping" rate limited: 3\/min exceeded \(resets in (1m|59s)\)$/);
    expect(await decisions(started.log, outcomes[0].callId)).toContainEqual(
      expect.objectContaining({
        rule: 'rate-limit',
        decision: 'allow',
        reason: 'within 3/min (2 left)',
        facts: { bucket: 'agent:-:tool:ping', window: 60_000 },
      }),
    );
    const limited = await decisions(started.log, outcomes[3].callId);
    expect(limited).toEqual([
      expect.objectContaining({ rule: 'rate-limit', decision: 'rate_limited', reason: outcomes[3].error }),
    ]);
    expect((await started.log.readCall(outcomes[3].callId)).at(-1)?.data).toMatchObject({
      status: 'blocked',
      blockedBy: 'rate_limited',
    });
    expect((await call('agent-b')).status).toBe('success');
  });
});

describe('loop detection', () => {
  it('warns from the 4th identical call and blocks from the 12th, for a tool without a shadow block', async () => {
    const started = await shadowKernel(YAML);
    kernel = started.kernel;
    const outcomes = [];
    for (let i = 0; i < 13; i += 1)
      outcomes.push(await kernel.pipeline.call({ tool: 'look', params: { q: 'same' }, iface: 'mcp' }));
    expect(outcomes.map((o) => o.status)).toEqual([...Array(11).fill('success'), 'blocked', 'blocked']);
    expect(outcomes[2].diagnostics).toBeUndefined();
    expect(outcomes[3].diagnostics).toBe(
      'warning: tool "look": identical call repeated 4 times within 5m (possible agent loop)\n',
    );
    expect(outcomes[11].error).toBe(
      'tool "look" blocked: identical call repeated too many times (possible agent loop)',
    );
    const warned = await decisions(started.log, outcomes[3].callId);
    expect(warned).toEqual([expect.objectContaining({ rule: 'loop-detection', decision: 'warn' })]);
    expect((await decisions(started.log, outcomes[12].callId))[0]).toMatchObject({ decision: 'loop_blocked' });
    expect((await kernel.pipeline.call({ tool: 'look', params: { q: 'other' }, iface: 'mcp' })).status).toBe('success');
  });

  it('fingerprints params after coercion: "1" and 1 are the same call', async () => {
    const yaml =
      'tools:\n  n:\n    type: cli\n    command: echo\n    args: ["{{v}}"]\n    parameters: [{name: v, type: integer}]\n    shadow: {loop: {warn: 2, block: 3}}\n';
    kernel = (await shadowKernel(yaml)).kernel;
    await kernel.pipeline.call({ tool: 'n', params: { v: 1 }, iface: 'mcp' });
    const second = await kernel.pipeline.call({ tool: 'n', params: { v: '1' }, iface: 'cli' });
    expect(second.diagnostics).toContain('identical call repeated 2 times');
  });

  it('spots two calls alternating A-B-A-B', async () => {
    const yaml =
      'tools:\n  look:\n    type: cli\n    command: echo\n    args: ["{{q}}"]\n    shadow: {loop: {warn: 4, block: 6}}\n';
    const started = await shadowKernel(yaml);
    kernel = started.kernel;
    const statuses = [];
    let last;
    for (const q of ['a', 'b', 'a', 'b', 'a', 'b']) {
      last = await kernel.pipeline.call({ tool: 'look', params: { q }, iface: 'mcp' });
      statuses.push(last.diagnostics ? 'warn' : last.status);
    }
    expect(statuses).toEqual(['success', 'success', 'success', 'warn', 'warn', 'blocked']);
    expect(last!.error).toBe('tool "look" blocked: two calls alternating too many times (possible agent loop)');
  });

  it('keeps agents apart and can be switched off per tool', async () => {
    const yaml =
      'tools:\n  a: {type: cli, command: echo, shadow: {loop: {warn: 1, block: 2}}}\n  b: {type: cli, command: echo, shadow: {loop: false}}\n';
    kernel = (await shadowKernel(yaml)).kernel;
    const call = (tool: string, agentId: string) => kernel!.pipeline.call({ tool, params: {}, iface: 'mcp', agentId });
    expect((await call('a', 'x')).status).toBe('success');
    expect((await call('a', 'y')).status).toBe('success');
    expect((await call('a', 'x')).status).toBe('blocked');
    for (let i = 0; i < 15; i += 1) expect((await call('b', 'x')).status).toBe('success');
  });
});
