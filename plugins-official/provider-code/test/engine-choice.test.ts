import { describe, expect, it } from 'vitest';
import { eventsOf } from '../../../test/helpers/kernel.js';
import { runCli, tempProject } from '../../../test/helpers/project.js';
import { callTool, startCodeKernel } from './code-kernel.js';

/** QuickJS has its own InternalError type; SES (V8) has none: a script can tell where it runs. */
const WHICH = 'async function run() { return typeof InternalError === "function" ? "quickjs" : "ses" }';

const TOOLS = `  on.default: {type: code, code: '${WHICH}'}
  on.quickjs: {type: code, engine: quickjs, code: '${WHICH}'}
`;

async function engines(yaml: string): Promise<Record<string, unknown>> {
  const { kernel, log } = await startCodeKernel(yaml);
  const ran: Record<string, unknown> = {};
  for (const [tool, params] of [
    ['factorly.code', { code: WHICH }],
    ['on.default', {}],
    ['on.quickjs', {}],
  ] as const) {
    const outcome = await callTool(kernel, tool, params);
    ran[tool] = outcome.output;
  }
  const recorded = (await eventsOf(log))
    .filter((e) => e.type === 'call.requested')
    .map((e) => e.type === 'call.requested' && [e.data.tool, e.data.engine]);
  return { ran, recorded };
}

describe('engines are a choice, and recorded', () => {
  it('quickjs by default; call.requested records the engine and its version', async () => {
    const { ran, recorded } = await engines(`tools:\n${TOOLS}`);
    expect(ran).toEqual({ 'factorly.code': 'quickjs', 'on.default': 'quickjs', 'on.quickjs': 'quickjs' });
    expect(recorded).toContainEqual([
      'factorly.code',
      { name: 'quickjs', version: '@jitl/quickjs-wasmfile-release-sync 0.32.0' },
    ]);
  });

  it("engine: on the factorly.code entry runs agents' scripts on SES", async () => {
    const { ran, recorded } = await engines(`tools:\n  factorly.code: {engine: ses}\n${TOOLS}`);
    expect(ran).toEqual({ 'factorly.code': 'ses', 'on.default': 'quickjs', 'on.quickjs': 'quickjs' });
    expect(recorded).toContainEqual([
      'factorly.code',
      { name: 'ses', version: `ses 2.3.0 on Node ${process.version}` },
    ]);
  });

  it("defaults: {engine: ses} is the project-wide engine; a tool's own engine: still wins", async () => {
    const { ran } = await engines(`defaults: {engine: ses}\ntools:\n${TOOLS}`);
    expect(ran).toEqual({ 'factorly.code': 'ses', 'on.default': 'ses', 'on.quickjs': 'quickjs' });
  });

  it('refuses an engine that is not installed, an unknown defaults key and engine: on other built-ins', async () => {
    const refusal = (yaml: string) =>
      startCodeKernel(yaml).then(
        () => 'loaded',
        (error: Error) => error.message,
      );
    expect(await refusal('tools:\n  factorly.code:\n    engine: v8\n')).toBe(
      'config: tool "factorly.code" engine "v8" is not installed; installed engines: quickjs, ses (.factorly/factorly.yaml:3)',
    );
    expect(await refusal('defaults: {engine: v8}\n')).toBe(
      'config: defaults.engine "v8" is not installed; installed engines: quickjs, ses',
    );
    expect(await refusal('defaults: {engin: ses}\n')).toBe(
      'config: unknown key "defaults.engin"; did you mean "engine"? (.factorly/factorly.yaml:1)',
    );
    expect(await refusal('tools:\n  factorly.code: {shadow: {confirm: true}, colour: red}\n')).toBe(
      'config: tool "factorly.code" has key "colour", but an entry for a built-in tool may only hold shadow, timeout, hidden, max_output, engine, memory_mb (.factorly/factorly.yaml:2)',
    );
  });

  it('logs show and logs --detail print the engine that ran a script', () => {
    const root = tempProject({ '.factorly/factorly.yaml': 'tools:\n  factorly.code: {engine: ses}\n' });
    expect(runCli(['call', 'factorly.code', '--code', WHICH], root)).toMatchObject({ status: 0, stdout: 'ses' });
    const entry = JSON.parse(runCli(['logs', '--json'], root).stdout.trim()) as { call_id: string; engine: unknown };
    expect(entry.engine).toEqual({ name: 'ses', version: `ses 2.3.0 on Node ${process.version}` });
    expect(runCli(['logs', 'show', entry.call_id], root).stdout).toContain(
      `  engine: ses (ses 2.3.0 on Node ${process.version})`,
    );
    expect(runCli(['logs', '--detail'], root).stdout).toContain(
      `Engine:    ses (ses 2.3.0 on Node ${process.version})`,
    );
  });
});
