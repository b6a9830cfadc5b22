import { afterEach, describe, expect, it } from 'vitest';
import { plugin as quickjs } from '@factorly/plugin-engine-quickjs';
import { plugin as ses } from '@factorly/plugin-engine-ses';
import { plugin as code } from '@factorly/plugin-provider-code';
import type { Kernel } from '../../src/kernel/kernel.js';
import { eventsOf, startTestKernel } from '../helpers/kernel.js';

const TOOLS = `  echo:
    type: cli
    command: printf
    args: ["%s", "{{text}}"]
    parameters: [{name: text}]
  recurse:
    type: code
    parameters: [{name: depth, type: integer, default: 0}]
    code: |
      async function run(p) {
        const r = await factorly.call("recurse", { depth: p.depth + 1 });
        return r.isError() ? "stopped at " + p.depth + ": " + r.error : r.output;
      }
  inner: {type: code, code: 'async function run() { return "inner done" }'}
  outer:
    type: code
    timeout: 15s
    code: |
      async function run() { const r = await factorly.call("inner", {}); return r.output }
`;

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

/** A script run through the whole pipeline (`factorly.code`, as an agent sends it) on one engine. */
async function start(engine: string) {
  const started = await startTestKernel(`defaults: {engine: ${engine}}\ntools:\n${TOOLS}`, [quickjs, ses, code]);
  kernel = started.kernel;
  const script = async (source: string) => {
    const outcome = await started.kernel.pipeline.call({
      tool: 'factorly.code',
      params: { code: source },
      iface: 'mcp',
    });
    return { ...outcome, value: outcome.exitCode === 0 ? parsed(outcome.output) : undefined };
  };
  return { script, events: () => eventsOf(started.log) };
}

function parsed(output: string): unknown {
  try {
    return JSON.parse(output) as unknown;
  } catch {
    return output;
  }
}

describe.each(['quickjs', 'ses'])('abusing the SDK bridge (factorly.*, tools.*) on %s', (engine) => {
  it("prototype pollution through factorly.call's arguments and results stays out of the host (and out of the guest)", async () => {
    const { script } = await start(engine);
    const result = await script(`async function run() {
      const sent = await factorly.call("echo", JSON.parse('{"__proto__": {"polluted": "yes"}, "text": "hi"}'));
      const named = await Promise.all(["__proto__", "constructor", "toString"].map((name) => factorly.call(name, {})));
      const parsed = await tools.echo({ text: '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}' });
      return { sent: sent.error, named: named.map((r) => r.error), own: Object.keys(parsed), guest: ({}).polluted ?? "clean" };
    }`);
    expect(result.value).toEqual({
      sent: 'parameter validation failed for "echo": unknown parameter "__proto__"',
      named: ['tool "__proto__" not found', 'tool "constructor" not found', 'tool "toString" not found'],
      own: ['__proto__', 'constructor'],
      guest: 'clean',
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as unknown as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('host functions called with the wrong types reject with a clear error the script can catch', async () => {
    const { script } = await start(engine);
    const result = await script(`async function run() {
      const attempts = [() => factorly.call(42), () => factorly.call("echo", "text"), () => factorly.call("echo", [1]), () => factorly.call("", {}),
        () => tools.echo("text"), () => tools(), () => tools.nothing.here({})];
      const out = [];
      for (const attempt of attempts) { try { await attempt(); out.push("accepted"); } catch (e) { out.push(e.message); } }
      return out;
    }`);
    expect(result.value).toEqual([
      'factorly.call(name, params): name must be a tool name',
      'factorly.call("echo", params): params must be an object',
      'factorly.call("echo", params): params must be an object',
      'factorly.call(name, params): name must be a tool name',
      'tools.echo takes one object argument',
      'tools is not a function; call tools.<namespace>.<tool>(args)',
      'UnknownTool: tools.nothing.here does not exist; use tools.search({ query }) to find tools',
    ]);
  });

  it('re-entrancy: a script calling itself stops at the nesting limit at once, with a reason, not at its deadline', async () => {
    const { script, events } = await start(engine);
    const result = await script(
      'async function run() { const r = await factorly.call("recurse", {}); return r.output }',
    );
    expect(result.value).toBe(
      'stopped at 3: scripts nest at most 5 deep: "recurse" would run inside 5 running scripts',
    );
    const completed = (await events()).filter((e) => e.type === 'call.completed');
    expect(completed).toHaveLength(6);
  });

  it('re-entrancy: more script trees at once than engine processes do not wait on each other', async () => {
    await start(engine);
    // Each outer run holds a process while its inner run needs another: 9 at once fill the pool's 8.
    const outcomes = await Promise.all(
      Array.from({ length: 9 }, () => kernel!.pipeline.call({ tool: 'outer', params: {}, iface: 'mcp' })),
    );
    expect(outcomes.map((o) => o.output)).toEqual(Array.from({ length: 9 }, () => 'inner done'));
  });
});
