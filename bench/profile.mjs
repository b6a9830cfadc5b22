#!/usr/bin/env node
// Where the CPU of one proxied tools/call goes: each route of the MCP bench runs under `--cpu-prof`,
// takes warm-up calls at each window's concurrency, then `PROFILE_CALLS` sequential calls (one at a time, as an agent makes them)
// and, when PROFILE_CONCURRENCY is set (default 64), as many again at that concurrency. For each
// window the proxy's CPU per call is read from /proc (main thread, all threads, and the upstream it
// spawned: CPU time, steady on a busy machine) and the main thread's share is split into stages by
// the profile's samples (bench/lib/cpu-stages.mjs). The in-process pipeline (bench/lib/pipeline-load.mjs)
// is profiled the same way. Prints a markdown table per window, writes bench/results/profile.json.
//   node bench/profile.mjs                       every route
//   PROFILE_ROUTES=serve,wrap node bench/profile.mjs
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuOf, cpuPerCall } from './lib/cpu-usage.mjs';
import { STAGES, stagesOf } from './lib/cpu-stages.mjs';
import { callBodies, openHttpLoad, openStdioLoad } from './lib/mcp-load.mjs';
import { defineRoutes, startHttp, stopChild } from './lib/mcp-routes.mjs';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CALLS = Number(process.env.PROFILE_CALLS ?? 1000);
const CONCURRENCY = Number(process.env.PROFILE_CONCURRENCY ?? 64);
/** The profiler's sampling interval (µs): finer costs the profiled process more. */
const INTERVAL = process.env.PROFILE_INTERVAL ?? '250';
const ONLY = process.env.PROFILE_ROUTES?.split(',');
const DEFAULT_ROUTES = [
  'direct',
  'floor-raw',
  'floor-sdk',
  'serve',
  'wrap',
  'serve-http',
  'wrap-http',
  'mcp-proxy',
  'supergateway',
  'pipeline',
];
const say = (line) => process.stderr.write(`${line}\n`);
const hrUs = () => Number(process.hrtime.bigint() / 1000n);

const tmpRoot = mkdtempSync(join(process.env.BENCH_TMPDIR || os.tmpdir(), 'factorly-profile-'));
// PROFILE_BASELINE=<a built checkout> (say, main before a change): its factorly routes and pipeline
// are profiled too, each right before the same route of this build, so both see the same load.
const builds = [
  ...(process.env.PROFILE_BASELINE ? [{ label: 'base', repo: resolve(process.env.PROFILE_BASELINE) }] : []),
  { label: '', repo: REPO },
];
const wanted = ONLY ?? DEFAULT_ROUTES;
const routesOf = async ({ label, repo }) =>
  (await defineRoutes({ repo, tmpRoot: mkdtempSync(join(tmpRoot, `routes${label}-`)) }))
    .filter((r) => wanted.includes(r.id) && (label === '' || r.factorly))
    .map((r) => ({ ...r, id: label ? `${r.id}@${label}` : r.id, name: label ? `${r.name} (${label})` : r.name }));
const perBuild = await Promise.all(builds.map(routesOf));
const results = [];
let nextId = 1;
const bodies = (count) => {
  const list = callBodies(count, nextId);
  nextId += count;
  return list;
};

try {
  for (const route of perBuild.at(-1)) {
    for (const build of perBuild) {
      const same = build.find((r) => r.id.split('@')[0] === route.id);
      if (!same) continue;
      say(`${same.id} ...`);
      try {
        results.push(await profileRoute(same));
      } catch (error) {
        say(`  ${same.id} failed: ${error?.stack ?? error}`);
      }
    }
  }
  if (wanted.includes('pipeline'))
    for (const { label, repo } of builds) results.push(await profilePipeline(label, repo));
} finally {
  // PROFILE_KEEP=1 keeps the .cpuprofile files (open them in Chrome's DevTools) and says where.
  if (process.env.PROFILE_KEEP) say(`profiles kept in ${tmpRoot}`);
  else rmSync(tmpRoot, { recursive: true, force: true });
}
mkdirSync(join(REPO, 'bench', 'results'), { recursive: true });
writeFileSync(
  join(REPO, 'bench', 'results', 'profile.json'),
  `${JSON.stringify({ at: new Date().toISOString(), loadavg: os.loadavg(), calls: CALLS, concurrency: CONCURRENCY, results }, null, 2)}\n`,
);
for (const window of ['sequential', 'concurrent']) console.log(`\n${table(results, window)}`);
for (const r of results) {
  console.log(`\n${r.id}, sequential: top functions (self µs per call)`);
  for (const [name, us] of r.sequential?.top ?? []) console.log(`  ${String(us).padStart(7)}  ${name}`);
}
say(
  `load average at the end: ${os
    .loadavg()
    .map((v) => v.toFixed(1))
    .join(' ')}`,
);

/**
 * One route, twice: once plain, for its CPU per call (a profiler's sampling costs CPU of its own,
 * more the longer a call waits), and once under the profiler, for the shares of its stages.
 */
async function profileRoute(route) {
  const plain = await measureRoute(route);
  const profDir = join(tmpRoot, `prof-${route.id}`);
  mkdirSync(profDir);
  const profiled = await measureRoute({
    ...route,
    args: ['--cpu-prof', '--cpu-prof-dir', profDir, '--cpu-prof-interval', INTERVAL, ...route.args],
  });
  return { id: route.id, name: route.name, ...withStages(profDir, profiled, plain) };
}

/** The route started, warmed up, then its windows: CPU per call and the hrtime bounds of each. */
async function measureRoute(route) {
  let server;
  let load;
  let pid;
  if (route.transport === 'http') {
    server = await startHttp(route);
    pid = server.child.pid;
    load = await openHttpLoad(server.url);
  } else {
    load = await openStdioLoad(route);
    pid = load.pid;
  }
  const windows = {};
  try {
    for (const [name, concurrency] of [
      ['sequential', 1],
      ['concurrent', CONCURRENCY],
    ]) {
      if (!concurrency) continue;
      // Warmed up at the window's own concurrency: code only concurrent calls run (lmdb-js's
      // batched commits) must not be measured while it is still being compiled.
      await load.run({
        warmup: { bodies: [], seconds: 1 },
        measured: { bodies: bodies(300), seconds: 60 },
        concurrency,
      });
      const cpu0 = cpuOf(pid);
      const from = hrUs();
      const r = await load.run({
        warmup: { bodies: [], seconds: 1 },
        measured: { bodies: bodies(CALLS), seconds: 600 },
        concurrency,
      });
      const to = hrUs();
      const cpu = cpuPerCall(cpu0, cpuOf(pid), r.calls);
      if (r.errors) throw new Error(`${r.errors} calls not echoed: ${r.firstError}`);
      windows[name] = { calls: r.calls, from, to, wallUsPerCall: Math.round((to - from) / r.calls), ...cpu };
    }
  } finally {
    await load.close();
    if (server) await stopChild(server.child);
  }
  return { pid, windows };
}

/** The kernel pipeline in a process of its own (bench/lib/pipeline-run.mjs), plain, then under the profiler. */
async function profilePipeline(label, repo) {
  const id = label ? `pipeline@${label}` : 'pipeline';
  say(`${id} ...`);
  const plain = await runPipeline([], repo);
  const profDir = join(tmpRoot, `prof-${id}`);
  mkdirSync(profDir);
  const profiled = await runPipeline(['--cpu-prof', '--cpu-prof-dir', profDir, '--cpu-prof-interval', INTERVAL], repo);
  return {
    id,
    name: `kernel pipeline in-process (no MCP, no processes)${label ? ` (${label})` : ''}`,
    ...withStages(profDir, profiled, plain),
  };
}

async function runPipeline(nodeArgs, repo) {
  const child = spawn(process.execPath, [...nodeArgs, join(REPO, 'bench', 'lib', 'pipeline-run.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      PIPELINE_REPO: repo,
      PIPELINE_TMP: tmpRoot,
      PIPELINE_CALLS: String(CALLS),
      PIPELINE_CONCURRENCY: String(CONCURRENCY),
    },
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  const code = await new Promise((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`pipeline run exited ${code}`);
  return { pid: child.pid, windows: JSON.parse(out) };
}

/**
 * Each window's main-thread CPU (from the plain run) split by the shares of the stages the profiled
 * run's samples fell in; `top` lists the functions (with their caller) that took the most, in µs per call.
 */
function withStages(profDir, profiled, plain) {
  const { pid } = profiled;
  const file = readdirSync(profDir).find((f) => f.includes(`.${pid}.`) && f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no CPU profile for pid ${pid} in ${profDir}: ${readdirSync(profDir).join(', ')}`);
  const out = {};
  for (const [name, w] of Object.entries(plain.windows)) {
    const p = profiled.windows[name];
    const { byStage, total, top } = stagesOf(join(profDir, file), p.from, p.to);
    const share = (samples) => (total ? (samples / total) * w.mainUs : 0);
    out[name] = {
      ...w,
      profiled: { mainUs: p.mainUs, processUs: p.processUs, samples: total, from: p.from, to: p.to },
      stagesUs: Object.fromEntries(Object.entries(byStage).map(([id, samples]) => [id, share(samples)])),
      top: top.map(([fn, samples]) => [fn, Math.round(share(samples) * 10) / 10]),
    };
  }
  return out;
}

function table(rows, window) {
  const measured = rows.filter((r) => r[window]);
  if (measured.length === 0) return '';
  const head = `| stage (CPU µs per call, ${window}) | ${measured.map((r) => r.id).join(' | ')} |`;
  const rule = `|---|${measured.map(() => '---:').join('|')}|`;
  const line = (label, value) => `| ${label} | ${measured.map((r) => value(r[window])).join(' | ')} |`;
  const lines = [head, rule];
  for (const [id, label] of STAGES) lines.push(line(label, (w) => Math.round(w.stagesUs[id])));
  lines.push(line('**main thread, total**', (w) => `**${w.mainUs}**`));
  lines.push(line('other threads (LMDB commit and sync, GC helpers, libuv)', (w) => w.processUs - w.mainUs));
  lines.push(line('**proxy process, total**', (w) => `**${w.processUs}**`));
  lines.push(line('the upstream process it spawned', (w) => (w.upstreamUs ? w.upstreamUs : '–')));
  lines.push(line('wall µs per call (loaded machine)', (w) => w.wallUsPerCall));
  return lines.join('\n');
}
