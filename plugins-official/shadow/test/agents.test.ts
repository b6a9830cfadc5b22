import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from 'factorly/testing';
import { instantProvider } from '../../../test/helpers/instant.js';
import { decisions, shadowKernel } from './helpers.js';

const YAML = `shadow:
  agents:
    "*": {deny: ["write.*"]}
    "ci-*": {allow: ["read.*"], rate_limit: 2/min}
    claude-code: {}
    cursor: {deny: [read.secret]}
tools:
  read.docs: {type: instant}
  read.secret: {type: instant}
  write.file: {type: instant}
`;

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

async function start(yaml = YAML) {
  const started = await shadowKernel(yaml, [instantProvider]);
  kernel = started.kernel;
  const call = (tool: string, agentId?: string) =>
    started.kernel.pipeline.call({ tool, params: {}, iface: 'mcp', ...(agentId ? { agentId } : {}) });
  return { ...started, call };
}

describe('rules per agent (shadow.agents)', () => {
  it('binds each agent by its most specific entry: exact id, then the longest glob, then "*"', async () => {
    const { call } = await start();
    // "*": writes denied, reads allowed.
    expect(await call('write.file', 'some-session')).toMatchObject({
      status: 'blocked',
      blockedBy: 'agent-access',
      error: 'tool "write.file" is denied for agent "some-session" (shadow.agents.*.deny)',
    });
    expect((await call('read.secret', 'some-session')).status).toBe('success');
    // claude-code's own (empty) entry replaces "*": it may write.
    expect((await call('write.file', 'claude-code')).status).toBe('success');
    // cursor's entry replaces "*" too: it may write, not read the secret.
    expect((await call('write.file', 'cursor')).status).toBe('success');
    expect((await call('read.secret', 'cursor')).error).toBe(
      'tool "read.secret" is denied for agent "cursor" (shadow.agents.cursor.deny)',
    );
    // "ci-*" has more literal characters than "*": an allow-list.
    expect((await call('write.file', 'ci-nightly')).error).toBe(
      'tool "write.file" is not allowed for agent "ci-nightly" (shadow.agents.ci-*.allow)',
    );
    // A call without an agent (the CLI) is not bound.
    expect((await call('write.file')).status).toBe('success');
  });

  it('limits an agent across all its tools, per agent, and records the buckets it counted in', async () => {
    const { call, log } = await start();
    const first = await call('read.docs', 'ci-a');
    expect((await call('read.secret', 'ci-a')).status).toBe('success');
    const third = await call('read.docs', 'ci-a');
    expect(third).toMatchObject({ status: 'blocked', blockedBy: 'agent-rate-limit' });
    expect(third.error).toMatch(
      /^agent "ci-a" rate limited: 2\/min exceeded \(shadow\.agents\.ci-\*\.rate_limit; resets in \d+[ms]\)$/,
    );
    // Another agent under the same glob has its own bucket.
    expect((await call('read.docs', 'ci-b')).status).toBe('success');
    expect((await decisions(log, first.callId)).find((d) => d.rule === 'agent-rate-limit')).toMatchObject({
      decision: 'allow',
      facts: { counted: [{ bucket: 'shadow.agents.ci-*|ci-a', window: 60_000 }] },
    });
  });

  it('refuses a malformed block, naming the key and its line', async () => {
    const refusal = (yaml: string) =>
      start(yaml).then(
        () => 'loaded',
        (thrown: unknown) => String(thrown),
      );
    const shape = await refusal(`shadow:\n  agents:\n    codex: {allow: x}\n  agent: {}\ntools: {}\n`);
    expect(shape).toContain('unknown key "shadow.agent"; did you mean "agents"? (.factorly/factorly.yaml:4)');
    expect(shape).toMatch(/invalid shadow\.agents\.codex\.allow: expected a list of tool names or globs .*:3\)/);
    expect(await refusal(`shadow:\n  agents:\n    cursor: {deny: [x], rate_limit: 3/minn}\ntools: {}\n`)).toContain(
      'invalid shadow.agents.cursor.rate_limit: unknown unit "minn" in "3/minn"; did you mean "min"? (units: sec, min, hour, day) (.factorly/factorly.yaml:3)',
    );
  });
});
