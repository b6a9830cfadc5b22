// Script sandbox cost: a warm run whose script makes 3 tool calls, on SES and on QuickJS, next to
// the same 3 calls made directly. Two levels:
//  - engine: `engine.run` with a host that answers at once (isolation + bridge cost only);
//  - kernel: a `type: code` tool calling 3 in-process `noop` tools through the pipeline, vs the
//    3 pipeline calls made directly (adds the inner calls' own pipeline and audit cost).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemoryEventLog } from '../../dist/src/events/memory-log.js';
import { createKernel } from '../../dist/src/kernel/kernel.js';
import { createQuickJsEngine, plugin as quickjsPlugin } from '../../plugins-official/engine-quickjs/dist/src/plugin.js';
import { createSesEngine, plugin as sesPlugin } from '../../plugins-official/engine-ses/dist/src/plugin.js';
import { plugin as codePlugin } from '../../plugins-official/provider-code/dist/src/plugin.js';
import { now, percentile, round } from './stats.mjs';

const THREE_CALLS =
  'async function run() { const a = await factorly.call("noop.a", {}); const b = await factorly.call("noop.b", {}); const c = await factorly.call("noop.c", {}); return a.output + b.output + c.output }';
const NO_CALLS = 'async function run() { return "abc" }';
const BUDGET = { timeoutMs: 30_000, memoryBytes: 64 * 1024 * 1024 };

const noopPlugin = {
  id: 'bench-noop',
  apiVersion: '1',
  register(registrar) {
    registrar.registerInit({
      deps: { providers: registrar.tokens.ToolProviders },
      init({ providers }, context) {
        providers.add(
          'noop',
          {
            type: 'noop',
            keys: ['out'],
            async execute(call) {
              return { output: call.tool.spec.out, exitCode: 0 };
            },
          },
          context.pluginId,
        );
      },
    });
  },
};

async function sample(runs, warmups, fn) {
  for (let i = 0; i < warmups; i += 1) await fn();
  const times = [];
  for (let i = 0; i < runs; i += 1) {
    const t0 = now();
    await fn();
    times.push(now() - t0);
  }
  return { n: runs, p50Ms: round(percentile(times, 50)), p99Ms: round(percentile(times, 99)) };
}

function check(failures, what, actual, expected) {
  if (actual !== expected)
    failures.push(`sandbox: ${what} returned ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`);
}

async function engineLevel(name, engine, runs, warmups, failures) {
  const host = {
    async call(_fn, args) {
      return { output: args.name.slice(-1), error: '', exitCode: 0, durationMs: 0 };
    },
  };
  const three = engine.compile(THREE_CALLS).script;
  const none = engine.compile(NO_CALLS).script;
  const first = await engine.run(three, {}, host, BUDGET);
  check(failures, `${name} engine run`, first.value, 'abc');
  const withCalls = await sample(runs, warmups, () => engine.run(three, {}, host, BUDGET));
  const empty = await sample(runs, warmups, () => engine.run(none, {}, host, BUDGET));
  await engine.stop();
  return { engine: name, withCalls, empty, perHostCallUs: round(((withCalls.p50Ms - empty.p50Ms) / 3) * 1000, 1) };
}

async function kernelLevel(tmpRoot, runs, warmups, failures) {
  const root = mkdtempSync(join(tmpRoot, 'sandbox-'));
  const noop = (n) => `  noop.${n}:\n    type: noop\n    out: ${n}\n`;
  const code = (engine) =>
    `  three_${engine}:\n    type: code\n    engine: ${engine}\n    code: ${JSON.stringify(THREE_CALLS)}\n`;
  mkdirSync(join(root, '.factorly'), { recursive: true });
  writeFileSync(
    join(root, '.factorly', 'factorly.yaml'),
    `tools:\n${noop('a')}${noop('b')}${noop('c')}${code('ses')}${code('quickjs')}`,
  );
  const inline = [quickjsPlugin, sesPlugin, codePlugin, noopPlugin].map((definition) => ({
    definition,
    source: { name: definition.id, version: '0.0.0', root: `inline:${definition.id}`, kind: 'builtin' },
  }));
  const kernel = await createKernel({
    cwd: root,
    globalDir: join(root, 'no-global'),
    log: new MemoryEventLog(),
    inlinePlugins: inline,
  });
  try {
    const call = (tool) => kernel.pipeline.call({ tool, params: {}, iface: 'cli' });
    const rows = {};
    for (const engine of ['ses', 'quickjs']) {
      check(failures, `three_${engine}`, (await call(`three_${engine}`)).output, 'abc');
      rows[engine] = await sample(runs, warmups, () => call(`three_${engine}`));
    }
    rows.direct = await sample(runs, warmups, async () => {
      await call('noop.a');
      await call('noop.b');
      await call('noop.c');
    });
    return rows;
  } finally {
    await kernel.stop();
  }
}

/** @param {{ tmpRoot: string, runs: number, warmups: number, log?: (line: string) => void }} opts */
export async function runSandboxBench(opts) {
  const say = opts.log ?? (() => {});
  const failures = [];
  const engines = [];
  for (const [name, create] of [
    ['ses', createSesEngine],
    ['quickjs', createQuickJsEngine],
  ]) {
    say(`  engine ${name}: ${opts.runs} warm runs with 3 host calls and with none`);
    engines.push(await engineLevel(name, create(), opts.runs, opts.warmups, failures));
  }
  say(`  kernel: code tool with 3 inner calls vs 3 direct calls, ${opts.runs} runs each`);
  const kernel = await kernelLevel(opts.tmpRoot, opts.runs, opts.warmups, failures);
  return { result: { engines, kernel }, failures };
}

export function sandboxRows(result) {
  if (!result) return [{ benchmark: 'sandbox', value: 'failed', unit: '', notes: 'see failures' }];
  const rows = [];
  const targets = { ses: 1, quickjs: 2 };
  for (const e of result.engines) {
    const met = e.withCalls.p50Ms <= targets[e.engine] ? 'MET' : 'NOT MET';
    rows.push({
      benchmark: `sandbox ${e.engine}: warm run, 3 host calls, p50`,
      value: e.withCalls.p50Ms,
      unit: 'ms',
      notes: `p99 ${e.withCalls.p99Ms} ms; n=${e.withCalls.n}; target <=${targets[e.engine]} ms: ${met}`,
    });
    rows.push({
      benchmark: `sandbox ${e.engine}: warm run, no host call, p50`,
      value: e.empty.p50Ms,
      unit: 'ms',
      notes: `p99 ${e.empty.p99Ms} ms`,
    });
    rows.push({
      benchmark: `sandbox ${e.engine}: per host call`,
      value: e.perHostCallUs,
      unit: 'us',
      notes: '(3 calls - none) / 3, p50',
    });
  }
  const k = result.kernel;
  rows.push({
    benchmark: 'sandbox kernel: 3 noop calls direct, p50',
    value: k.direct.p50Ms,
    unit: 'ms',
    notes: `p99 ${k.direct.p99Ms} ms`,
  });
  for (const engine of ['ses', 'quickjs']) {
    const perInner = round(((k[engine].p50Ms - k.direct.p50Ms) / 3) * 1000, 1);
    rows.push({
      benchmark: `sandbox kernel: code tool (${engine}) making them, p50`,
      value: k[engine].p50Ms,
      unit: 'ms',
      notes: `p99 ${k[engine].p99Ms} ms; overhead per inner call ${perInner} us (incl. the outer call)`,
    });
  }
  return rows;
}
