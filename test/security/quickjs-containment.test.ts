import type { JsonValue, SandboxEngine, SandboxHost } from 'factorly';
import { afterAll, describe, expect, it } from 'vitest';
import { createQuickJsEngine } from '@factorly/plugin-engine-quickjs';
import { createSesEngine } from '@factorly/plugin-engine-ses';

const host: SandboxHost = { call: async () => null };

/**
 * Each probe makes a resizable buffer, lets a built-in capture its length, shrinks the buffer from
 * a callback and sprays other objects filled with MARK into the freed memory; it returns how many
 * MARK values the built-in copied out (foreign bytes), or "refused: <error>" when it cannot run.
 * On quickjs-emscripten 0.32.0 as shipped, `with` alone reads 320 of them.
 */
const OVER_READ = String.raw`async function run() {
  const MARK = 0x5ec0de;
  const keep = [];
  const spray = () => { for (let k = 0; k < 16; k++) { const o = new Int32Array(64); o.fill(MARK); keep.push(o); } };
  const count = (ta) => { let n = 0; for (let i = 0; i < ta.length; i++) if (ta[i] === MARK) n++; return n; };
  const fresh = () => { const ab = new ArrayBuffer(4096, { maxByteLength: 4096 }); return { ab, ta: new Int32Array(ab) }; };
  const shrink = (ab) => ({ valueOf() { ab.resize(16); spray(); return 1; } });
  const probes = {
    with: () => { const { ab, ta } = fresh(); return count(ta.with(0, shrink(ab))); },
    sort: () => { const { ab, ta } = fresh(); for (let i = 0; i < ta.length; i++) ta[i] = ta.length - i; let n = 0;
      ta.sort((a, b) => { if (++n === 50) { ab.resize(16); spray(); } return a - b; }); return count(ta); },
    slice: () => { const ab = new ArrayBuffer(4096, { maxByteLength: 8192 });
      const Evil = function (len) { ab.resize(16); spray(); return new ArrayBuffer(len); };
      ab.constructor = { [Symbol.species]: Evil }; return count(new Int32Array(ab.slice(0, 4096))); },
    construct: () => { const { ab, ta } = fresh(); const Target = new Proxy(function () {}, { get(t, k) { if (k === 'prototype') { ab.resize(16); spray(); return Int32Array.prototype; } return t[k]; } });
      return count(Reflect.construct(Int32Array, [ta], Target)); },
    fill: () => { const { ab, ta } = fresh(); ta.fill(7, 0, shrink(ab)); return count(new Int32Array(ab)); },
    copyWithin: () => { const { ab, ta } = fresh(); ta.copyWithin(0, shrink(ab)); return count(new Int32Array(ab)); },
    transfer: () => { const { ab, ta } = fresh(); return count(ta.with(0, { valueOf() { ab.transfer(0); spray(); return 1; } })); },
  };
  const out = {};
  for (const [name, probe] of Object.entries(probes)) { try { out[name] = probe(); } catch (e) { out[name] = 'refused: ' + e.name; } }
  return out;
}`;

function engines(): [string, SandboxEngine][] {
  return [
    ['quickjs', createQuickJsEngine()],
    ['ses', createSesEngine()],
  ];
}

describe.each(engines())('script containment on %s: no script reads bytes outside its own objects', (_name, engine) => {
  afterAll(() => engine.stop?.());

  async function run(source: string): Promise<JsonValue | undefined> {
    const compiled = engine.compile(source);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.diagnostics));
    const result = await engine.run(compiled.script, {}, host, { timeoutMs: 10_000, memoryBytes: 64 * 1024 * 1024 });
    expect(result.error).toBeUndefined();
    return result.value;
  }

  it('built-ins that capture a length and call back cannot copy foreign heap bytes', async () => {
    const probes = (await run(OVER_READ)) as Record<string, number | string>;
    expect(Object.keys(probes).sort()).toEqual([
      'construct',
      'copyWithin',
      'fill',
      'slice',
      'sort',
      'transfer',
      'with',
    ]);
    for (const [name, found] of Object.entries(probes)) {
      expect(found === 0 || String(found).startsWith('refused: '), `${name} read ${found} foreign values`).toBe(true);
    }
  });

  it('no buffer can be resized, grown or detached, whichever way the method is reached', async () => {
    const seen = await run(`async function run() {
      const ab = new ArrayBuffer(8, { maxByteLength: 64 });
      const tries = [() => ab.resize(64), () => ab.transfer(), () => ab.transferToFixedLength(),
        () => Object.getPrototypeOf(new Uint8Array(1).buffer).resize.call(ab, 32), () => ArrayBuffer.prototype.transfer.call(ab, 0)];
      const refused = tries.map((attempt) => { try { attempt(); return 'done'; } catch (e) { return e.name; } });
      return { refused, byteLength: ab.byteLength, sharedBuffers: typeof globalThis.SharedArrayBuffer };
    }`);
    expect(seen).toEqual({
      refused: ['TypeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError'],
      byteLength: 8,
      sharedBuffers: 'undefined',
    });
  });
});
