import type { JsonValue, SandboxEngine, SandboxHost, SandboxRunResult } from 'factorly';
import { afterAll, describe, expect, it } from 'vitest';
import { createQuickJsEngine } from '@factorly/plugin-engine-quickjs';
import { createSesEngine } from '@factorly/plugin-engine-ses';

/** Records what reached the host: an escape would show here, or in the host's own globals. */
const reached: { fn: string; args: JsonValue }[] = [];
const host: SandboxHost = {
  async call(fn, args) {
    reached.push({ fn, args });
    return { fn, args };
  },
};

const engines: [string, () => SandboxEngine][] = [
  ['quickjs', createQuickJsEngine],
  ['ses', createSesEngine],
];

describe.each(engines)('escape and resource attacks on %s', (_name, create) => {
  const engine = create();
  afterAll(() => engine.stop?.());

  async function run(source: string, timeoutMs = 5_000): Promise<SandboxRunResult> {
    const compiled = engine.compile(source);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.diagnostics));
    return engine.run(compiled.script, { p: 1 }, host, { timeoutMs, memoryBytes: 32 * 1024 * 1024 });
  }

  it('every function constructor (plain, async, generator) evaluates inside the sandbox', async () => {
    const result = await run(`async function run() {
      const ctors = [Function, (async () => {}).constructor, (function* () {}).constructor, (async function* () {}).constructor];
      return ctors.map((C) => { try { const f = C("return [typeof process, typeof require, typeof globalThis.fetch]"); const r = f(); return typeof r.then === "function" ? "promise" : typeof r.next === "function" ? r.next().value : r; } catch (e) { return e.name; } });
    }`);
    expect(JSON.stringify(result.value)).not.toContain('object');
    expect(JSON.stringify(result.value)).not.toContain('function');
  });

  it('stack frames (Error.prepareStackTrace, callers) hand out no host object', async () => {
    const result = await run(`async function run() {
      const seen = [];
      try { Error.prepareStackTrace = (e, frames) => frames.map((f) => typeof f.getThis === "function" ? [typeof f.getThis(), typeof f.getFunction()] : "no frame api"); } catch (e) { seen.push("frozen"); }
      const stack = new Error("x").stack;
      seen.push(typeof stack);
      function probe() { try { return probe.caller === null || probe.caller === undefined ? "no caller" : typeof probe.caller; } catch (e) { return e.name; } }
      seen.push(probe());
      return seen;
    }`);
    expect(result.exitCode).toBe(0);
    expect(result.value).not.toContain('object');
    expect(JSON.stringify(result.value)).toMatch(/"string"/);
  });

  it('forging the outcome through Object.prototype.toJSON is caught, not trusted by the host', async () => {
    const result = await run(`async function run() {
      try { Object.prototype.toJSON = function () { delete Object.prototype.toJSON; return { ok: true, logs: { forged: true }, value: "forged" }; }; } catch (e) { return "refused: " + e.name; }
      return "tried";
    }`);
    expect(
      result.value === 'refused: TypeError' ||
        (result.exitCode === 2 && /tampered with the sandbox's outcome/.test(result.error ?? '')),
    ).toBe(true);
    expect(Array.isArray(result.logs) && result.logs.every((line) => typeof line === 'string')).toBe(true);
    expect(({} as Record<string, unknown>).toJSON).toBeUndefined();
  });

  it('a value too deeply nested for JSON ends the run, and the engine keeps serving', async () => {
    const deep = await run(
      'async function run() { let v = []; for (let i = 0; i < 1e6; i++) v = [v]; return v }',
      20_000,
    );
    expect(deep.exitCode).not.toBe(0);
    expect(await run('async function run(p) { return p.p }')).toMatchObject({ exitCode: 0, value: 1 });
  });

  it('host calls: cyclic arguments fail in the guest, oversized ones are refused before they leave the engine', async () => {
    reached.length = 0;
    const result = await run(
      `async function run() {
      const out = [];
      const cyclic = {}; cyclic.self = cyclic;
      try { await factorly.call("t", cyclic); out.push("sent"); } catch (e) { out.push(e.name); }
      try { await factorly.call("t", { text: "x".repeat(9 * 1024 * 1024) }); out.push("sent"); } catch (e) { out.push(e.message); }
      return out;
    }`,
      20_000,
    );
    expect(result.exitCode).toBe(0);
    expect(result.value).toEqual([
      'TypeError',
      'the arguments of this host call are 9437217 characters of JSON; the limit is 8388608',
    ]);
    expect(reached).toEqual([]);
  });

  it('ten thousand concurrent host calls are answered, and the run still ends on time', async () => {
    const result = await run(
      'async function run() { const all = []; for (let i = 0; i < 10000; i++) all.push(factorly.call("t", { i })); return (await Promise.all(all)).length }',
      20_000,
    );
    expect(result).toMatchObject({ exitCode: 0, value: 10000 });
  });
});
