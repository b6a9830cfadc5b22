import { createHash } from 'node:crypto';
import type { SandboxEngine } from 'factorly';
import { describe, expect, it } from 'vitest';
import { createQuickJsEngine } from '@factorly/plugin-engine-quickjs';
import { CodeProvider } from '../src/code-provider.js';
import { eventsOf } from '../../../test/helpers/kernel.js';
import { callTool, GREET, startCodeKernel } from './code-kernel.js';

const COUNT = `  count:
    type: cli
    command: echo
    args: ["{{n}}"]
    parameters: [{name: n, type: integer, required: true}]
`;

describe('type: code tools', () => {
  it('runs the seed example on both engines: greet --name alice → hello alice', async () => {
    const { kernel } = await startCodeKernel(
      GREET +
        GREET.replace('tools:\n', '')
          .replace('greet:', 'greet_ses:')
          .replace('type: code', 'type: code\n    engine: ses'),
    );
    expect(await callTool(kernel, 'greet', { name: 'alice' })).toMatchObject({
      status: 'success',
      output: 'hello alice',
      exitCode: 0,
    });
    expect(await callTool(kernel, 'greet')).toMatchObject({ output: 'hello world' });
    expect(await callTool(kernel, 'greet_ses', { name: 'bob' })).toMatchObject({ output: 'hello bob' });
  });

  it('keeps a script that does not compile listed, warns at load, and answers every call with the location', async () => {
    const yaml =
      'tools:\n  broken:\n    type: code\n    code: |\n      async function run(p) {\n        return p.x +;\n      }\n';
    const { kernel } = await startCodeKernel(yaml);
    expect(kernel.registry.get('broken')).toBeDefined();
    expect(await callTool(kernel, 'broken')).toMatchObject({
      status: 'error',
      exitCode: 1,
      error: 'script failed to compile: Unexpected token (line 2, column 15)',
    });
    const warnings: string[] = [];
    const installed = new Map<string, SandboxEngine>([['quickjs', createQuickJsEngine()]]);
    const engines = {
      get: (name: string) => installed.get(name),
      keys: () => [...installed.keys()],
      values: () => [...installed.values()],
    };
    const provider = new CodeProvider(engines, kernel.pipeline as never, (message) => warnings.push(message));
    expect(provider.prepare(kernel.registry.get('broken')!)).toEqual({ problems: [] });
    expect(warnings).toEqual([
      'tool "broken" (.factorly/factorly.yaml:2): script failed to compile: Unexpected token (line 2, column 15)',
    ]);
  });

  it('maps returns: strings verbatim, null empty, other values JSON; thrown → exit 1; timed out → exit 124, cancelled → exit 130', async () => {
    const tool = (name: string, body: string, extra = '') =>
      `  ${name}:\n    type: code\n${extra}    code: "async function run() { ${body} }"\n`;
    const { kernel } = await startCodeKernel(
      'tools:\n' +
        tool('s', 'return \\"ok\\"') +
        tool('n', 'return null') +
        tool('j', 'return { count: 42 }') +
        tool('t', 'throw new Error(\\"nope\\")') +
        tool('loop', 'while (true) {}', '    timeout: 500ms\n'),
    );
    expect(await callTool(kernel, 's')).toMatchObject({ output: 'ok', exitCode: 0 });
    expect(await callTool(kernel, 'n')).toMatchObject({ output: '', exitCode: 0 });
    expect(await callTool(kernel, 'j')).toMatchObject({ output: '{"count":42}', exitCode: 0 });
    expect(await callTool(kernel, 't')).toMatchObject({ status: 'error', exitCode: 1, error: 'nope' });
    expect(await callTool(kernel, 'loop')).toMatchObject({
      status: 'timeout',
      exitCode: 124,
      error: 'timed out after 500 ms',
    });
    expect(await callTool(kernel, 's')).toMatchObject({ output: 'ok' });
  });

  it('stops a running script when the caller cancels, on both engines, and the engine serves the next run', async () => {
    const tool = (engine: string) =>
      `  spin_${engine}:\n    type: code\n    engine: ${engine}\n    timeout: 20s\n    code: "async function run() { while (true) {} }"\n  ok_${engine}:\n    type: code\n    engine: ${engine}\n    code: "async function run() { return 'fine' }"\n`;
    const { kernel } = await startCodeKernel(`tools:\n${tool('quickjs')}${tool('ses')}`);
    for (const engine of ['quickjs', 'ses']) {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const cancelled = await kernel.pipeline.call({
        tool: `spin_${engine}`,
        params: {},
        iface: 'mcp',
        signal: controller.signal,
      });
      expect(cancelled).toMatchObject({
        status: 'cancelled',
        exitCode: 130,
        error: 'cancelled: the caller cancelled the call',
      });
      expect(await callTool(kernel, `ok_${engine}`)).toMatchObject({ output: 'fine', exitCode: 0 });
    }
  });

  it('refuses an engine that is not installed, naming the installed ones', async () => {
    await expect(
      startCodeKernel('tools:\n  x:\n    type: code\n    engine: v8\n    code: "async function run() {}"\n'),
    ).rejects.toThrow(
      'config: tool "x" engine "v8" is not installed; installed engines: quickjs, ses (.factorly/factorly.yaml:2)',
    );
  });

  it('calls other tools through the pipeline: parent, root, agent and iface code on inner calls; source sha and usage recorded', async () => {
    const source =
      'async function run(p) {\n  const a = await factorly.call("count", { n: p.n });\n  const b = await tools.count({ n: 2 });\n  return [a.output.trim(), a.isError(), b];\n}\n';
    const yaml = `tools:\n  twice:\n    type: code\n    parameters: [{name: n, type: integer, required: true}]\n    code: ${JSON.stringify(source)}\n${COUNT}`;
    const { kernel, log } = await startCodeKernel(yaml);
    const outer = await callTool(kernel, 'twice', { n: 1 }, 'agent-7');
    expect(outer).toMatchObject({ status: 'success', output: '["1",false,2]' });
    await callTool(kernel, 'twice', { n: 3 }, 'agent-7');
    const events = await eventsOf(log);
    const sha = createHash('sha256').update(source).digest('hex');
    const requested = events
      .filter((e) => e.type === 'call.requested')
      .map((e) => e.data as unknown as Record<string, unknown>);
    const outerRequest = requested.find((r) => r.callId === outer.callId)!;
    expect(outerRequest).toMatchObject({ tool: 'twice', iface: 'cli', agentId: 'agent-7', sourceSha: sha });
    const inner = requested.filter((r) => r.parentId === outer.callId);
    expect(inner).toHaveLength(2);
    for (const r of inner)
      expect(r).toMatchObject({ tool: 'count', iface: 'code', agentId: 'agent-7', rootId: outer.callId });
    expect(events.filter((e) => e.type === 'source.recorded').map((e) => e.data)).toEqual([
      { sha, language: 'javascript', source },
    ]);
    const completed = events.find(
      (e) => e.type === 'call.completed' && (e.data as { callId: string }).callId === outer.callId,
    )!.data as { usage: Record<string, number> };
    expect(completed.usage).toMatchObject({ toolCalls: 2, hostCalls: 2 });
    expect(completed.usage.durationMs).toBeGreaterThan(0);
  });

  it('gives call N+1 past shadow.max_calls an error the script can catch', async () => {
    const source =
      'async function run() { const seen = []; for (let i = 0; i < 3; i++) { try { seen.push((await factorly.call("count", { n: i })).output.trim()); } catch (e) { seen.push(e.message); } } return seen; }';
    const { kernel } = await startCodeKernel(
      `tools:\n  capped:\n    type: code\n    shadow: {max_calls: 2}\n    code: ${JSON.stringify(source)}\n${COUNT}`,
    );
    const result = await callTool(kernel, 'capped');
    expect(JSON.parse(result.output)).toEqual([
      '0',
      '1',
      'max_calls exceeded: one run of "capped" may call at most 2 tools (shadow.max_calls)',
    ]);
  });

  it('truncates output at max_output and says so', async () => {
    const { kernel } = await startCodeKernel(
      'tools:\n  big:\n    type: code\n    max_output: 10\n    code: "async function run() { return \\"é\\".repeat(20) }"\n',
    );
    const result = await callTool(kernel, 'big');
    expect(result).toMatchObject({ status: 'success', exitCode: 0 });
    expect(result.output).toBe('ééééé\n… output truncated: 40 bytes, the first 10 shown (max_output 10)');
  });

  it('throws a descriptive error from tools.<tool>() on failure and for an unknown tool', async () => {
    const source =
      'async function run() { const out = []; for (const f of [() => tools.fail({}), () => tools.nope.thing({})]) { try { await f(); } catch (e) { out.push(e.message); } } return out; }';
    const yaml = `tools:\n  probe:\n    type: code\n    code: ${JSON.stringify(source)}\n  fail:\n    type: cli\n    command: sh\n    args: ["-c", "echo broken >&2; exit 3"]\n`;
    const { kernel } = await startCodeKernel(yaml);
    expect(JSON.parse((await callTool(kernel, 'probe')).output)).toEqual([
      'tools.fail failed (error, exit 3): broken\n',
      'UnknownTool: tools.nope.thing does not exist; use tools.search({ query }) to find tools',
    ]);
  });
});

describe('factorly.listTools', () => {
  it('lists visible tools with their parameters, leaving hidden ones out (still callable by name)', async () => {
    const source =
      'async function run() { const list = await factorly.listTools(); const secret = await factorly.call("secret", {}); return { list: list.filter((t) => t.name !== "factorly.code"), secret: secret.output } }';
    const yaml = `tools:\n  lister:\n    type: code\n    description: Lists\n    code: ${JSON.stringify(source)}\n${COUNT}  secret:\n    type: cli\n    hidden: true\n    command: echo\n    args: [shh]\n`;
    const { kernel } = await startCodeKernel(yaml);
    expect(JSON.parse((await callTool(kernel, 'lister')).output)).toEqual({
      list: [
        {
          name: 'count',
          description: '',
          parameters: [{ name: 'n', type: 'integer', required: true, description: '', default: null }],
        },
        { name: 'lister', description: 'Lists', parameters: [] },
      ],
      secret: 'shh\n',
    });
  });
});

describe('factorly.code builtin', () => {
  it('runs agent-written code with a params object: hi world', async () => {
    const { kernel, log } = await startCodeKernel('tools: {}\n');
    const code = 'async function run(p) { return "hi " + p.who }';
    const result = await callTool(kernel, 'factorly.code', { code, params: { who: 'world' } });
    expect(result).toMatchObject({ status: 'success', output: 'hi world' });
    const requested = (await eventsOf(log)).find((e) => e.type === 'call.requested')!.data as { sourceSha: string };
    expect(requested.sourceSha).toBe(createHash('sha256').update(code).digest('hex'));
    expect(kernel.registry.get('factorly.code')).toMatchObject({ maxOutput: 50_000, spec: { localOnly: true } });
  });

  it('is left out with the other built-ins by disable_builtins or disabled_builtins', async () => {
    expect(
      (await startCodeKernel('disable_builtins: true\ntools: {}\n')).kernel.registry.get('factorly.code'),
    ).toBeUndefined();
    expect(
      (await startCodeKernel('disabled_builtins: [factorly.code]\ntools: {}\n')).kernel.registry.get('factorly.code'),
    ).toBeUndefined();
  });

  it('takes shadow overrides from the config, as the seed shows (max_calls here)', async () => {
    const { kernel } = await startCodeKernel(`tools:\n  factorly.code:\n    shadow:\n      max_calls: 1\n${COUNT}`);
    const code =
      'async function run() { await factorly.call("count", { n: 1 }); try { await factorly.call("count", { n: 2 }); } catch (e) { return e.message } }';
    expect(await callTool(kernel, 'factorly.code', { code })).toMatchObject({
      output: 'max_calls exceeded: one run of "factorly.code" may call at most 1 tools (shadow.max_calls)',
    });
  });

  it('refuses params that are not an object and code that does not compile', async () => {
    const { kernel } = await startCodeKernel('tools: {}\n');
    expect(await callTool(kernel, 'factorly.code', { code: 'async function run() {}', params: [1] })).toMatchObject({
      exitCode: 1,
      error: 'params must be a JSON object, e.g. {"who":"world"}',
    });
    expect(await callTool(kernel, 'factorly.code', { code: 'return 1' })).toMatchObject({
      exitCode: 1,
      error: "script failed to compile: 'return' outside of function (line 1, column 1)",
    });
    expect(
      await callTool(kernel, 'factorly.code', { code: 'async function run() { return import("fs") }' }),
    ).toMatchObject({
      exitCode: 1,
      error: 'script failed to compile: import() is not available in factorly scripts (line 1, column 31)',
    });
  });
});
