import type { SandboxHost, SandboxRunResult } from '../../contracts/sandbox.js';
import { assert, like } from '../suite.js';
import { echoHost, type EngineCases } from './sandbox-engine-cases.js';

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

/** The SandboxEngine contract's cases for isolation: no way out to the host process, the same globals everywhere. */
export function isolationCases({ it, engine, run }: EngineCases): void {
  /** Runs an escape attempt that first tells the host it started: an engine that refuses every script must not pass. */
  async function attempt(source: string, what: string): Promise<SandboxRunResult> {
    let reached = false;
    const host: SandboxHost = {
      async call(fn, args) {
        reached = true;
        return echoHost.call(fn, args);
      },
    };
    const result = await run(
      source.replace('async function run() {', 'async function run() { await factorly.call("reached", {});'),
      {},
      host,
    );
    assert.ok(reached, `case "${what}": the engine never ran the script (${result.exitCode}: ${String(result.error)})`);
    return result;
  }

  it('contains constructor.constructor("return process")()', async () => {
    const result = await attempt(
      'async function run() { const p = constructor.constructor("return process")(); return p.pid }',
      'contains constructor.constructor',
    );
    assert.equal(result.exitCode, 1);
    assert.equal(result.value, undefined);
  });

  it('contains Function("return this")(): no process, require or host globals', async () => {
    const result = await attempt(
      'async function run() { const g = Function("return this")(); return g ? [typeof g.process, typeof g.require, typeof g.fetch, typeof g.setTimeout] : "no global" }',
      'contains Function("return this")()',
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
}
