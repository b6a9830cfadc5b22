import { FactorlyError } from '../../base/errors.js';
import type { JsonValue } from '../../events/catalog.js';
import type { SandboxHost } from '../../contracts/sandbox.js';
import { assert, like } from '../suite.js';
import type { EngineCases } from './sandbox-engine-cases.js';

/** The SandboxEngine contract's cases for what a run returns: values, logs, compile errors, host calls. */
export function runResultCases({ it, engine, run }: EngineCases): void {
  it('runs run(params) and returns its value as JSON, with console output in logs', async () => {
    const result = await run(
      'async function run(p) {\n  console.log("got", p.name, { n: 1 });\n  return { greeting: "hello " + p.name, list: [1, 2] };\n}',
      { name: 'alice' },
    );
    like(result, { exitCode: 0, value: { greeting: 'hello alice', list: [1, 2] }, logs: ['got alice {"n":1}'] });
    assert.equal(result.usage.hostCalls, 0);
  });

  it('maps undefined to null and keeps strings as strings', async () => {
    like(await run('async function run() {}'), { exitCode: 0, value: null });
    like(await run('async function run() { return "plain" }'), { exitCode: 0, value: 'plain' });
  });

  it('reports a syntax error with the line and column of the user source', () => {
    const compiled = engine().compile('async function run(p) {\n  return p.x +;\n}');
    assert.deepEqual(compiled, { ok: false, diagnostics: [{ message: 'Unexpected token', line: 2, column: 15 }] });
  });

  it('refuses a script without run(params)', () => {
    const compiled = engine().compile('const x = 1;');
    assert.deepEqual(compiled, {
      ok: false,
      diagnostics: [
        { message: 'the script must declare `async function run(params)` at top level', line: 1, column: 1 },
      ],
    });
  });

  it('gives a stable sha256 of the source', () => {
    const a = engine().compile('async function run() { return 1 }');
    const b = engine().compile('async function run() { return 1 }');
    assert.match(String(a.ok && b.ok && a.script.sourceSha), /^[0-9a-f]{64}$/);
    assert.equal(a.ok && b.ok && a.script.sourceSha === b.script.sourceSha, true);
  });

  it('exit 1 with the message for a thrown error', async () => {
    like(await run('async function run() { throw new TypeError("bad input") }'), {
      exitCode: 1,
      error: 'TypeError: bad input',
    });
    like(await run('async function run() { throw new Error("plain") }'), { exitCode: 1, error: 'plain' });
  });

  it('calls host functions through factorly and tools, and sees host errors as catchable rejections', async () => {
    const result = await run(
      `async function run() {
      const a = await factorly.call("t.one", { x: 1 });
      let caught = "";
      try { await tools.search({ query: "q" }); await tools.fail.now(); } catch (e) { caught = e.message; }
      return { a: a.exitCode === undefined ? "no exit" : a, caught };
    }`,
      {},
      {
        async call(fn, args): Promise<JsonValue> {
          if (fn === 'tool') throw new FactorlyError('TOOL_FAILED', 'host says no');
          return fn === 'call' ? { output: JSON.stringify(args), exitCode: 0, durationMs: 1 } : { fn };
        },
      },
    );
    like(result, {
      exitCode: 0,
      value: { a: { output: '{"name":"t.one","params":{"x":1}}', exitCode: 0 }, caught: 'host says no' },
    });
    assert.equal(result.usage.hostCalls, 3);
  });

  it('gives a real clock and random numbers (same behaviour on every engine)', async () => {
    const result = await run(
      'async function run() { return [typeof Date.now(), new Date(0).toISOString(), Math.random() < 1] }',
    );
    like(result, { exitCode: 0, value: ['number', '1970-01-01T00:00:00.000Z', true] });
  });

  it('runs 20 host calls concurrently with Promise.all', async () => {
    // Every call waits until all 20 have arrived: run one after the other, they would time out.
    let arrived = 0;
    let release: () => void = () => {};
    const all = new Promise<void>((resolve) => (release = resolve));
    const barrier: SandboxHost = {
      async call(_fn, args) {
        arrived += 1;
        if (arrived === 20) release();
        await all;
        return args;
      },
    };
    const result = await run(
      'async function run() { const ids = Array.from({ length: 20 }, (_, i) => i); return (await Promise.all(ids.map((i) => factorly.call("t", { i })))).length }',
      {},
      barrier,
    );
    like(result, { exitCode: 0, value: 20 });
  });
}
