// Cost of the shadow rule chain per call: the same trivial in-process tool called through the full
// pipeline with no rules, and with 20 rules (the 4 official ones, with a rate limit and loop
// detection active, plus 16 stateless third-party rules). Measured on the in-memory log (CPU cost of
// the chain) and on the LMDB log (what a call pays, durable appends included).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKernel } from '../../dist/src/kernel/kernel.js';
import { MemoryEventLog } from '../../dist/src/events/memory-log.js';
import { plugin as shadowPlugin } from '../../plugins-official/shadow/dist/src/plugin.js';
import { now, percentile, round } from './stats.mjs';

const YAML = `tools:
  noop:
    type: noop
    parameters: [{name: i, type: integer}]
    shadow: {rate_limit: 1000000/hour}
`;

const inline = (definition) => ({
  definition,
  source: { name: definition.id, version: '0', root: 'inline', kind: 'core' },
});
const define = (id, init) => ({ id, apiVersion: '1', register: (r) => r.registerInit(init(r.tokens)) });

/** The tool type the bench calls: returns at once, so what is measured is factorly itself. */
const noopProvider = define('bench-noop', (tokens) => ({
  deps: { providers: tokens.ToolProviders },
  init: ({ providers }, ctx) =>
    providers.add(
      'noop',
      { type: 'noop', keys: [], execute: async () => ({ output: 'ok', exitCode: 0 }) },
      ctx.pluginId,
    ),
}));

/** 16 stateless rules, as third-party plugins would add: each looks at the params and allows. */
const extraRules = define('bench-rules', (tokens) => ({
  deps: { rules: tokens.ShadowRules },
  init: ({ rules }, ctx) => {
    for (let n = 0; n < 16; n += 1) {
      rules.add(
        {
          name: `extra-${n}`,
          order: 100 + n,
          evaluate: (c) => ({ decision: 'allow', reason: `checked ${Object.keys(c.params).length} params` }),
        },
        ctx.pluginId,
      );
    }
  },
}));

/**
 * @param {{ tmpRoot: string, calls: number, durableCalls: number, log?: (line: string) => void }} opts
 */
export async function runShadowBench(opts) {
  const say = opts.log ?? (() => {});
  const failures = [];
  const results = [];
  for (const store of ['memory', 'lmdb']) {
    for (const variant of ['none', 'rules20']) {
      const dir = mkdtempSync(join(opts.tmpRoot, `shadow-${store}-${variant}-`));
      mkdirSync(join(dir, '.factorly'));
      writeFileSync(join(dir, '.factorly', 'factorly.yaml'), YAML);
      const plugins = variant === 'none' ? [noopProvider] : [noopProvider, shadowPlugin, extraRules];
      const kernel = await createKernel({
        cwd: dir,
        globalDir: join(dir, 'no-global'),
        inlinePlugins: plugins.map(inline),
        log: store === 'memory' ? new MemoryEventLog() : undefined,
      });
      try {
        const calls = store === 'memory' ? opts.calls : opts.durableCalls;
        const samples = [];
        for (let i = 0; i < calls + 50; i += 1) {
          const t0 = now();
          const outcome = await kernel.pipeline.call({ tool: 'noop', params: { i }, iface: 'mcp' });
          const ms = now() - t0;
          if (outcome.status !== 'success')
            failures.push(`shadow ${store}/${variant}: call ${i} was ${outcome.status}: ${outcome.error}`);
          if (i >= 50) samples.push(ms); // the first 50 warm up the JIT and the fold
        }
        const rules = variant === 'none' ? 0 : 20;
        results.push({
          store,
          variant,
          rules,
          calls,
          p50Ms: round(percentile(samples, 50)),
          p99Ms: round(percentile(samples, 99)),
        });
        say(
          `  ${store} ${rules} rules: p50 ${round(percentile(samples, 50))} ms, p99 ${round(percentile(samples, 99))} ms`,
        );
      } finally {
        await kernel.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  return { results, failures };
}

export function shadowRows(results) {
  const rows = [];
  for (const store of ['memory', 'lmdb']) {
    const none = results.find((r) => r.store === store && r.rules === 0);
    const full = results.find((r) => r.store === store && r.rules === 20);
    if (!none || !full) continue;
    for (const r of [none, full]) {
      rows.push({
        benchmark: `shadow ${store} log, call with ${r.rules} rules, p50`,
        value: r.p50Ms,
        unit: 'ms',
        notes: `n=${r.calls}; p99 ${r.p99Ms} ms`,
      });
    }
    rows.push({
      benchmark: `shadow ${store} log, rule chain cost, p50`,
      value: round(full.p50Ms - none.p50Ms),
      unit: 'ms',
      notes: `20 rules - none; p99 diff ${round(full.p99Ms - none.p99Ms)} ms`,
    });
  }
  return rows;
}
