import { spawnSync } from 'node:child_process';
import { assert, like, type TestApi } from '../suite.js';
import { echoHost, type EngineCases } from './sandbox-engine-cases.js';

/** The SandboxEngine contract's cases for runaway scripts: each is stopped, and the engine keeps serving. */
export function runawayCases({ it, run, expectStillServing }: EngineCases): void {
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
export function hostExitsAfterRunaway(test: TestApi, name: string, module: { path: string; factory: string }): void {
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
