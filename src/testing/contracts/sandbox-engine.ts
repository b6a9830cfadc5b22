import { spawnSync } from 'node:child_process';
import { FactorlyError } from '../../kernel/base/errors.js';
import type { JsonValue } from '../../events/catalog.js';
import type { SandboxBudget, SandboxEngine, SandboxHost, SandboxRunResult } from '../../kernel/contracts/sandbox.js';
import { afterSuite, assert, like, type TestApi } from '../suite.js';

const BUDGET: SandboxBudget = { timeoutMs: 5_000, memoryBytes: 32 * 1024 * 1024, maxLogBytes: 2_000 };

/** The guest's global names on every engine (QuickJS also has its InternalError type). */
const SAME_GLOBALS = [
  'AggregateError',
  'Array',
  'ArrayBuffer',
  'BigInt',
  'BigInt64Array',
  'BigUint64Array',
  'Boolean',
  'DataView',
  'Date',
  'Error',
  'EvalError',
  'Float32Array',
  'Float64Array',
  'Function',
  'Infinity',
  'Int16Array',
  'Int32Array',
  'Int8Array',
  'JSON',
  'Map',
  'Math',
  'NaN',
  'Number',
  'Object',
  'Promise',
  'Proxy',
  'RangeError',
  'ReferenceError',
  'Reflect',
  'RegExp',
  'Set',
  'String',
  'Symbol',
  'SyntaxError',
  'TypeError',
  'URIError',
  'Uint16Array',
  'Uint32Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'WeakMap',
  'WeakSet',
  'console',
  'decodeURI',
  'decodeURIComponent',
  'encodeURI',
  'encodeURIComponent',
  'escape',
  'eval',
  'factorly',
  'globalThis',
  'isFinite',
  'isNaN',
  'parseFloat',
  'parseInt',
  'tools',
  'undefined',
  'unescape',
];

/** A host that answers `echo` with its arguments and fails `fail` with a message. */
const echoHost: SandboxHost = {
  async call(fn, args) {
    if (fn === 'fail') throw new FactorlyError('TOOL_FAILED', 'host says no');
    return { fn, args };
  },
};

export interface SandboxEngineSubject {
  name: string;
  create(): SandboxEngine;
  /**
   * Where a fresh process can make the engine (the built module and its export), to check that the
   * host exits on its own after a runaway script, without `stop()`.
   */
  module?: { path: string; factory: string };
}

/**
 * What every `SandboxEngine` must do, run unchanged on each engine. Containment cases end with a
 * second run that must succeed: a stopped run never takes the engine (or the host) down with it.
 * Memory bombs take a few seconds each: give the runner a per-test timeout of 30 s or more.
 */
export function sandboxEngineContract(test: TestApi, subject: SandboxEngineSubject): void {
  const { describe, it } = test;
  const { name } = subject;
  describe(`SandboxEngine contract: ${name}`, () => {
    let made: SandboxEngine | undefined;
    const engine = (): SandboxEngine => (made ??= subject.create());
    afterSuite(test, async () => {
      await made?.stop?.();
    });

    async function run(
      source: string,
      params: JsonValue = {},
      host: SandboxHost = echoHost,
      budget: Partial<SandboxBudget> = {},
    ): Promise<SandboxRunResult> {
      const compiled = engine().compile(source);
      if (!compiled.ok) assert.fail(`unexpected compile failure: ${JSON.stringify(compiled.diagnostics)}`);
      return engine().run(compiled.script, params, host, { ...BUDGET, ...budget });
    }

    async function expectStillServing(): Promise<void> {
      const after = await run('async function run(p) { return "alive " + p.n }', { n: 1 });
      like(after, { exitCode: 0, value: 'alive 1' });
    }

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

    it('stops while(true){} at the deadline with exit 2 and keeps serving', async () => {
      const result = await run('async function run() { while (true) {} }', {}, echoHost, { timeoutMs: 500 });
      like(result, { exitCode: 2, error: 'timed out after 500 ms' });
      await expectStillServing();
    });

    it('stops a loop that starts after an awaited host call', async () => {
      const result = await run('async function run() { await factorly.call("x", {}); for (;;) {} }', {}, echoHost, {
        timeoutMs: 500,
      });
      like(result, { exitCode: 2, error: 'timed out after 500 ms' });
    });

    const bombs: [string, string][] = [
      ['objects', 'const a = []; for (let i = 0; ; i++) a.push({ i, s: "x" + i });'],
      ['strings', 'const a = []; for (let i = 0; ; i++) a.push("y".repeat(1 << 20) + i);'],
      ['typed arrays', 'const a = []; for (;;) a.push(new Float64Array(1 << 20).fill(1));'],
      [
        'ArrayBuffers',
        'const a = []; for (;;) { const b = new ArrayBuffer(1 << 22); new Uint8Array(b).fill(7); a.push(b); }',
      ],
    ];
    for (const [kind, body] of bombs) {
      it(`stops a memory bomb made of ${kind} with exit 2`, async () => {
        const result = await run(`async function run() { ${body} }`, {}, echoHost, { timeoutMs: 20_000 });
        assert.equal(result.exitCode, 2);
        assert.match(String(result.error), /^out of memory: the script used more than 32 MiB$/);
        await expectStillServing();
      });
    }

    it('ends deep recursion cleanly', async () => {
      const result = await run('async function run() { function f(n) { return f(n + 1) + 1 } return f(0) }');
      assert.equal(result.exitCode, 1);
      assert.match(String(result.error), /stack (overflow|size exceeded)/i);
      await expectStillServing();
    });

    it('stops a catastrophic regex at the deadline', async () => {
      const result = await run('async function run() { return /^(a+)+$/.test("a".repeat(40) + "b") }', {}, echoHost, {
        timeoutMs: 500,
      });
      like(result, { exitCode: 2, error: 'timed out after 500 ms' });
      await expectStillServing();
    });

    it('ends a run awaiting a promise that can never settle, without waiting for the deadline', async () => {
      const result = await run('async function run() { await new Promise(() => {}); return "never" }', {}, echoHost, {
        timeoutMs: 25_000,
      });
      like(result, {
        exitCode: 2,
        error: 'the script is waiting for a promise that can never settle (no tool call is pending)',
      });
      await expectStillServing();
    });

    it('survives an unhandled rejection in the guest', async () => {
      const result = await run(
        'async function run() { Promise.reject(new Error("floating")); (async () => { throw new Error("again") })(); return "ok" }',
      );
      like(result, { exitCode: 0, value: 'ok' });
      await expectStillServing();
    });

    it('caps a flood of console output and says how much was dropped', async () => {
      const result = await run(
        'async function run() { for (let i = 0; i < 50000; i++) console.log("spam line " + i); return "done" }',
      );
      like(result, { exitCode: 0, value: 'done' });
      assert.ok(result.logs.join('\n').length < 2_200);
      assert.match(String(result.logs.at(-1)), /^… \d+ more console lines dropped \(over 2000 bytes\)$/);
    });

    it('contains constructor.constructor("return process")()', async () => {
      const result = await run(
        'async function run() { const p = constructor.constructor("return process")(); return p.pid }',
      );
      assert.equal(result.exitCode, 1);
      assert.equal(result.value, undefined);
    });

    it('contains Function("return this")(): no process, require or host globals', async () => {
      const result = await run(
        'async function run() { const g = Function("return this")(); return g ? [typeof g.process, typeof g.require, typeof g.fetch, typeof g.setTimeout] : "no global" }',
      );
      const seen = result.exitCode === 0 ? result.value : result.error;
      assert.ok(
        seen === 'no global' ||
          JSON.stringify(seen) === '["undefined","undefined","undefined","undefined"]' ||
          typeof seen === 'string',
        `saw ${JSON.stringify(seen)}`,
      );
      assert.ok(
        !JSON.stringify(result.value ?? null).includes('object'),
        `the guest reached ${JSON.stringify(result.value)}`,
      );
    });

    it('exposes exactly the same globals as every other engine', async () => {
      const result = await run(
        'async function run() { return Object.getOwnPropertyNames(globalThis).filter((k) => k !== "run" && k !== "InternalError").sort() }',
      );
      assert.deepEqual(result.value, SAME_GLOBALS);
    });

    it('has no require, process, fetch, timers or module loading', async () => {
      const result = await run(
        'async function run() { return [typeof require, typeof process, typeof fetch, typeof setTimeout, typeof setInterval, typeof queueMicrotask] }',
      );
      like(result, {
        exitCode: 0,
        value: ['undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined'],
      });
      like(await run('async function run() { return require("fs") }'), { exitCode: 1 });
      like(await run('async function run() { return await Function("return imp" + "ort(\\"fs\\")")() }'), {
        exitCode: 1,
      });
    });

    it('refuses import("fs") at compile time with a location', () => {
      assert.deepEqual(engine().compile('async function run() {\n  return import("fs");\n}'), {
        ok: false,
        diagnostics: [{ message: 'import() is not available in factorly scripts', line: 2, column: 10 }],
      });
    });

    it('accepts import( and <!-- inside strings and comments (same programs on every engine)', async () => {
      const result = await run(
        '// import("x") <!-- a comment\nasync function run() { return ["import(x)", `eval(1) <!-- -->`] }',
      );
      like(result, { exitCode: 0, value: ['import(x)', 'eval(1) <!-- -->'] });
    });

    it('keeps prototype pollution inside the run', async () => {
      const polluted = await run(
        'async function run(p) { try { Object.prototype.polluted = "yes"; p.__proto__.viaParams = "yes"; } catch (e) {} return "tried" }',
        { a: 1 },
      );
      assert.equal(polluted.exitCode, 0);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      assert.equal(({} as Record<string, unknown>).viaParams, undefined);
      const next = await run('async function run() { return [({}).polluted ?? "clean", ({}).viaParams ?? "clean"] }');
      like(next, { exitCode: 0, value: ['clean', 'clean'] });
    });

    it('lets no buffer change size or detach (the QuickJS stale-length over-reads need one)', async () => {
      const result = await run(
        'async function run() { const ab = new ArrayBuffer(8, { maxByteLength: 16 }); for (const m of ["resize", "transfer", "transferToFixedLength"]) { try { ab[m](16) } catch (e) {} } return ab.byteLength }',
      );
      like(result, { exitCode: 0, value: 8 });
    });

    it('reports a value that cannot become JSON', async () => {
      const result = await run('async function run() { return { big: 10n } }');
      assert.equal(result.exitCode, 1);
      assert.match(String(result.error), /^run\(\) returned a value that cannot be converted to JSON: TypeError/);
    });
  });
  if (subject.module) hostExitsAfterRunaway(test, name, subject.module);
}

/** Runs a runaway script in a fresh process and returns without stopping the engine: the process must exit on its own. */
const EXIT_CHECK = `
const [modulePath, factory, source] = process.argv.slice(1);
const engine = (await import(modulePath))[factory]();
const result = await engine.run(engine.compile(source).script, {}, { call: async () => null }, { timeoutMs: 300, memoryBytes: 32 << 20 });
const after = await engine.run(engine.compile('async function run() { return "served" }').script, {}, { call: async () => null }, { timeoutMs: 5000, memoryBytes: 32 << 20 });
process.stdout.write(JSON.stringify([result.exitCode, result.error, after.value]));
`;

/** The host process exits by itself after a run was stopped, even without `engine.stop()` (idle engine processes never keep it alive). */
function hostExitsAfterRunaway(test: TestApi, name: string, module: { path: string; factory: string }): void {
  test.describe(`SandboxEngine contract: ${name} lets the host exit`, () => {
    for (const source of [
      'async function run() { while (true) {} }',
      'async function run() { return /^(a+)+$/.test("a".repeat(40) + "b") }',
    ]) {
      test.it(`after ${source}`, () => {
        const child = spawnSync(
          process.execPath,
          ['--input-type=module', '-e', EXIT_CHECK, module.path, module.factory, source],
          { encoding: 'utf8', timeout: 60_000 },
        );
        assert.equal(child.status, 0, child.stderr);
        assert.deepEqual(JSON.parse(child.stdout), [2, 'timed out after 300 ms', 'served']);
      });
    }
  });
}
