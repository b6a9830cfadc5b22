import { describe, expect, it } from 'vitest';
import { policyOf } from '../src/policy.js';
import { shadowKernel } from './helpers.js';

const tool = (shadow: string): string => `tools:\n  t:\n    type: cli\n    command: echo\n    shadow:\n${shadow}`;

async function policy(yaml: string) {
  const { kernel } = await shadowKernel(yaml);
  try {
    return policyOf(kernel.registry.get('t')!);
  } finally {
    await kernel.stop();
  }
}

async function errorOf(yaml: string): Promise<string> {
  try {
    await (await shadowKernel(yaml)).kernel.stop();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the config to be refused');
}

describe('the shadow keys of the official rules', () => {
  it('parses every key into the policy the rules read', async () => {
    expect(
      await policy(
        tool(
          '      deny: [drop]\n      confirm: true\n      rate_limit: 10/min\n      scope: server\n      max_calls: 7\n' +
            '      log_params: [q]\n      timeout: 90s\n      loop: {window: 1m, warn: 2, block: 3}\n',
        ),
      ),
    ).toEqual({
      owner: 't',
      deny: ['drop'],
      confirm: true,
      rateLimit: { count: 10, unit: 'min', windowMs: 60_000, text: '10/min' },
      scope: 'server',
      maxCalls: 7,
      logParams: ['q'],
      confirmTimeoutMs: 90_000,
      loop: { enabled: true, windowMs: 60_000, warn: 2, block: 3 },
    });
  });

  it('gives max_calls its default of 100 and accepts day limits and loop: false', async () => {
    expect(await policy(tool('      rate_limit: 500/day\n      loop: false\n'))).toMatchObject({
      maxCalls: 100,
      rateLimit: { count: 500, windowMs: 86_400_000 },
      loop: { enabled: false },
    });
  });

  it('refuses a rate_limit typo with the line of the key', async () => {
    expect(await errorOf(tool('      rate_limit: 10/minn\n'))).toBe(
      'config: tool "t" has an invalid shadow.rate_limit: unknown unit "minn" in "10/minn"; did you mean "min"? (units: sec, min, hour, day) (.factorly/factorly.yaml:6)',
    );
    expect(await errorOf(tool('      rate_limit: ten per minute\n'))).toBe(
      'config: tool "t" has an invalid shadow.rate_limit: "ten per minute" is not <count>/<unit> (for example "10/min"; units: sec, min, hour, day) (.factorly/factorly.yaml:6)',
    );
    expect(await errorOf(tool('      rate_limit: 0/hour\n'))).toContain(
      'the count in "0/hour" must be a whole number of at least 1',
    );
    expect(await errorOf(tool('      loop: {window: 2d}\n'))).toBe(
      'config: tool "t" has an invalid shadow.loop.window: 2 days is longer than a day (.factorly/factorly.yaml:6)',
    );
    expect(await errorOf(tool('      loop: {block: 5000}\n'))).toBe(
      'config: tool "t" has an invalid shadow.loop.block: 5000 is above 1000 (identical calls are counted up to that) (.factorly/factorly.yaml:6)',
    );
  });

  it('names unknown keys, bad scopes, loop settings and lists with their lines', async () => {
    const message = await errorOf(
      tool(
        '      denny: [x]\n      scope: agents\n      loop: {warn: 5, block: 2, windwo: 1m}\n      confirm: yes-please\n',
      ),
    );
    expect(message.split('\n')).toEqual([
      'config: tool "t" has unknown key "shadow.denny"; did you mean "deny"? (.factorly/factorly.yaml:6)',
      'config: tool "t" has an invalid shadow.scope: "agents" is not one of agent, tool, server, global; did you mean "agent"? (.factorly/factorly.yaml:7)',
      'config: tool "t" has unknown key "shadow.loop.windwo"; did you mean "window"? (.factorly/factorly.yaml:8)',
      'config: tool "t" has an invalid shadow.confirm: expected true, false, a list of tool names or a mapping {tools, for, per, once_per}, got "yes-please" (.factorly/factorly.yaml:9)',
    ]);
    expect(await errorOf(tool('      loop: {warn: 5, block: 2}\n'))).toBe(
      'config: tool "t" has an invalid shadow.loop: block (2) must not be below warn (5) (.factorly/factorly.yaml:6)',
    );
    expect(await errorOf(tool('      log_params: username\n'))).toBe(
      'config: tool "t" has an invalid shadow.log_params: expected a list of parameter names, got "username" (.factorly/factorly.yaml:6)',
    );
    expect(await errorOf(tool('      log_params: [q, 1]\n'))).toBe(
      'config: tool "t" has an invalid shadow.log_params[1]: expected a string, got 1 (.factorly/factorly.yaml:6)',
    );
    expect(await errorOf(tool('      log_params: {q: true}\n'))).toContain(
      'shadow.log_params: expected a list of parameter names',
    );
    expect(await errorOf(tool('      max_calls: 0\n'))).toBe(
      'config: tool "t" has an invalid shadow.max_calls: 0 is not a whole number of at least 1 (.factorly/factorly.yaml:6)',
    );
  });

  it('reads confirm as a mapping that offers standing approvals, and names each bad setting with its line', async () => {
    expect(await policy(tool('      confirm: {for: 30m, per: agent}\n'))).toMatchObject({
      confirm: true,
      standing: { kind: 'window', forMs: 1_800_000, perAgent: true },
    });
    expect(await policy(tool('      confirm: {once_per: source, for: 24h}\n'))).toMatchObject({
      confirm: true,
      standing: { kind: 'source', forMs: 86_400_000, perAgent: false },
    });
    expect(await policy(tool('      confirm: {tools: [t], once_per: source, per: agent}\n'))).toMatchObject({
      confirm: ['t'],
      standing: { kind: 'source', forMs: 86_400_000, perAgent: true },
    });
    expect((await policy(tool('      confirm: {tools: false}\n'))).confirm).toBe(false);
    const line = '(.factorly/factorly.yaml:6)';
    const cases: [string, string][] = [
      [
        '{for: 30x}',
        `has an invalid shadow.confirm.for: "30x" is not a duration (use "60s", "2m" or a number of seconds) ${line}`,
      ],
      ['{for: 90d}', `has an invalid shadow.confirm.for: 90 days is longer than 30 days ${line}`],
      ['{for: 1m, per: tool}', `has an invalid shadow.confirm.per: "tool" is not one of agent ${line}`],
      [
        '{once_per: sources}',
        `has an invalid shadow.confirm.once_per: "sources" is not one of source; did you mean "source"? ${line}`,
      ],
      [
        '{per: agent}',
        `has an invalid shadow.confirm.per: per: agent needs \`for\` (how long) or \`once_per: source\` ${line}`,
      ],
      ['{once_par: source}', `has unknown key "shadow.confirm.once_par"; did you mean "once_per"? ${line}`],
      [
        '{tools: yes}',
        `has an invalid shadow.confirm.tools: expected true, false or a list of tool names, got "yes" ${line}`,
      ],
    ];
    for (const [written, message] of cases)
      expect(await errorOf(tool(`      confirm: ${written}\n`)), written).toBe(`config: tool "t" ${message}`);
  });
});
