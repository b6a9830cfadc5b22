// History costs nothing to open: `factorly call` on a project whose log holds 300k events of the
// last 6 h, next to the same call on an empty log (interleaved runs), plus `logs stats` there, and
// `serve`'s first call on the empty log for reference (the 1M-event one is in the audit section).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildHistoryProject, GREET_YAML } from './history-log.mjs';
import { serveCallLatencies } from './serve-first-call.mjs';
import { now, round, summarize } from './stats.mjs';

export const HISTORY_TARGET_RATIO = 1.25;

export async function runHistoryBench({ repo, dir, events, runs, log }) {
  const failures = [];
  const empty = join(dir, 'history-empty');
  mkdirSync(join(empty, '.factorly'), { recursive: true });
  writeFileSync(join(empty, '.factorly', 'factorly.yaml'), GREET_YAML);
  const full = join(dir, 'history-full');
  log(`  building a ${events.toLocaleString('en-US')}-event log over the last 6 h …`);
  const built = await buildHistoryProject({ repo, dir: full, events, spanMs: 6 * 3_600_000, say: log });
  const samples = { empty: [], full: [] };
  let k = 0;
  const call = (cwd, into) => {
    k += 1;
    const t = now();
    // Distinct params: identical ones are what loop detection blocks.
    const r = spawnSync(process.execPath, [join(repo, 'bin', 'run.js'), 'call', 'greet', '--name', `h${k}`], {
      cwd,
      encoding: 'utf8',
    });
    const ms = now() - t;
    if (r.status !== 0 || r.stdout !== `Hello, h${k}!\n`)
      failures.push(`history: call in ${cwd} failed: ${r.stderr || r.stdout}`);
    into?.push(ms);
  };
  log(`  ${runs} interleaved factorly call runs on each log …`);
  for (let i = 0; i < 2; i += 1) for (const cwd of [empty, full]) call(cwd);
  for (let i = 0; i < runs; i += 1) {
    call(empty, samples.empty);
    call(full, samples.full);
  }
  const stats = [];
  for (let i = 0; i < 4; i += 1) {
    const t = now();
    const r = spawnSync(process.execPath, [join(repo, 'bin', 'run.js'), 'logs', 'stats', '--json'], {
      cwd: full,
      encoding: 'utf8',
    });
    if (r.status !== 0) failures.push(`history: logs stats failed: ${r.stderr}`);
    if (i > 0) stats.push(now() - t);
  }
  log('  serve: first tools/call on the empty log …');
  const serveEmpty = await serveCallLatencies({ repo, cwd: empty, calls: 30 }).catch((error) => {
    failures.push(`history: serve on the empty log: ${error?.message ?? error}`);
    return null;
  });
  const emptyCall = summarize(samples.empty);
  const fullCall = summarize(samples.full);
  return {
    failures,
    result: {
      events: built.events,
      emptyCall,
      fullCall,
      ratio: round(fullCall.medianMs / emptyCall.medianMs, 2),
      stats: summarize(stats),
      serveEmpty,
    },
  };
}

export function historyRows(result, serveRow) {
  if (!result) return [{ benchmark: 'history', value: 'failed', unit: '', notes: 'see failures' }];
  const n = result.events.toLocaleString('en-US');
  return [
    {
      benchmark: `history: factorly call on ${n} events of 6 h / on an empty log`,
      value: result.ratio,
      unit: 'x',
      notes: `medians ${round(result.fullCall.medianMs, 1)} vs ${round(result.emptyCall.medianMs, 1)} ms (n=${result.fullCall.n} each, interleaved); target <= ${HISTORY_TARGET_RATIO}x: ${result.ratio <= HISTORY_TARGET_RATIO ? 'MET' : 'NOT MET'}`,
    },
    {
      benchmark: `history: factorly logs stats on ${n} events, median`,
      value: round(result.stats.medianMs, 1),
      unit: 'ms',
      notes: 'CLI start included; from the persisted projection',
    },
    serveRow(
      "history: serve's first tools/call on an empty log / later ones (reference)",
      result.serveEmpty,
      HISTORY_TARGET_RATIO,
    ),
  ];
}
