// A new node on a long NATS log: `factorly call` (a fresh process, so a node that has never seen the
// stream) on projects whose stream holds 1k, 100k and 300k events written as factorly writes them
// (call triples, with the audit view's and the shadow rules' projections registered, so the stream's
// side holds the snapshots a real writer leaves). Rows: each first call's median wall time and the
// process's peak RSS, and both at 300k next to 1k (targets: time <= 1.25x, RSS flat: <= 1.1x).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startNatsCluster } from '../../test/helpers/nats-cluster.mjs';
import { callTriple, GREET_YAML } from './history-log.mjs';
import { median, now, percentile, round } from './stats.mjs';

export const NODE_TIME_TARGET = 1.25;
export const NODE_RSS_TARGET = 1.1;
const MAX_RSS = join(dirname(fileURLToPath(import.meta.url)), 'max-rss.mjs');
/** Events per append while building: about 150 KB per stream message. */
const BUILD_BATCH = 300;

const load = (repo, path) => import(pathToFileURL(join(repo, path)).href);

/** @param {{ repo: string, tmpRoot: string, sizes: number[], runs: number, log?: (line: string) => void }} opts */
export async function runNatsNodeBench(opts) {
  const say = opts.log ?? (() => {});
  const failures = [];
  const cluster = await startNatsCluster(3);
  try {
    const projects = [];
    for (const events of opts.sizes) {
      say(`  building a stream of ${events.toLocaleString('en-US')} events …`);
      projects.push(await buildNatsProject(opts, cluster.servers, events));
    }
    const samples = new Map(projects.map((project) => [project.events, { ms: [], rssKb: [] }]));
    let k = 0;
    say(`  ${opts.runs} interleaved first calls of a new node on each …`);
    for (let run = 0; run < opts.runs + 1; run += 1) {
      for (const project of projects) {
        k += 1;
        const measured = firstCall(opts.repo, project.dir, `n${k}`);
        if (measured.error) failures.push(`nats-node: call on ${project.events} events failed: ${measured.error}`);
        // The first round warms the page cache and the servers.
        else if (run > 0) {
          samples.get(project.events).ms.push(measured.ms);
          samples.get(project.events).rssKb.push(measured.rssKb);
        }
      }
    }
    const results = projects.map((project) => {
      const { ms, rssKb } = samples.get(project.events);
      return {
        events: project.events,
        buildEventsPerSecond: project.buildEventsPerSecond,
        medianMs: round(median(ms), 1),
        p90Ms: round(percentile(ms, 90), 1),
        rssMb: round(median(rssKb) / 1024, 1),
        n: ms.length,
      };
    });
    return { results, failures };
  } finally {
    await cluster.stop();
  }
}

/** A project on its own stream of `events` events (plus the project's config), built by a writer like factorly's. */
export async function buildNatsProject(opts, servers, events) {
  const { ReplicatedEventLog } = await load(opts.repo, 'dist/src/events/replicated-log.js');
  const { registerAuditViews } = await load(opts.repo, 'dist/src/events/audit-views.js');
  const { loopProjection } = await load(opts.repo, 'plugins-official/shadow/dist/src/loop-rule.js');
  const { bucketsProjection } = await load(opts.repo, 'plugins-official/shadow/dist/src/rate-limit-rule.js');
  const { NatsBatchStream } = await load(opts.repo, 'plugins-official/log-nats/dist/src/nats-stream.js');
  const { natsSettingsOf } = await load(opts.repo, 'plugins-official/log-nats/dist/src/nats-settings.js');
  const stream = `bench-node-${events}`;
  const dir = mkdtempSync(join(opts.tmpRoot, `nats-node-${events}-`));
  mkdirSync(join(dir, '.factorly'));
  writeFileSync(
    join(dir, '.factorly', 'factorly.yaml'),
    `log:\n  engine: nats\n  servers: [${servers.join(', ')}]\n  stream: ${stream}\n  replicas: 3\n${GREET_YAML}`,
  );
  const calls = Math.floor(events / 3);
  const spanMs = 6 * 3_600_000;
  let clock = Date.now() - spanMs;
  const settings = natsSettingsOf({ servers, stream, replicas: 3 });
  const writer = new ReplicatedEventLog(new NatsBatchStream(settings, async () => undefined), {
    timeoutMs: 60_000,
    clock: () => new Date(clock),
  });
  registerAuditViews(writer);
  writer.project(loopProjection);
  writer.project(bucketsProjection);
  const perBatch = BUILD_BATCH / 3;
  const started = now();
  for (let first = 0; first < calls; first += perBatch) {
    const batch = [];
    for (let i = first; i < Math.min(first + perBatch, calls); i += 1) batch.push(...callTriple(i));
    clock += (spanMs / calls) * perBatch;
    await writer.append(batch);
  }
  await writer.close();
  return { dir, events: calls * 3, buildEventsPerSecond: Math.round((calls * 3) / ((now() - started) / 1000)) };
}

/** `factorly call greet` in a fresh process: wall time, and the peak RSS of the processes it ran in. */
function firstCall(repo, cwd, name) {
  const rssDir = mkdtempSync(join(cwd, 'rss-'));
  try {
    const t0 = now();
    const run = spawnSync(
      process.execPath,
      ['--import', pathToFileURL(MAX_RSS).href, join(repo, 'bin', 'run.js'), 'call', 'greet', '--name', name],
      { cwd, encoding: 'utf8', env: { ...process.env, BENCH_RSS_DIR: rssDir } },
    );
    const ms = now() - t0;
    if (run.status !== 0 || run.stdout !== `Hello, ${name}!\n`) return { error: run.stderr || run.stdout };
    const rssKb = Math.max(...readdirSync(rssDir).map((file) => Number(readFileSync(join(rssDir, file), 'utf8'))));
    return { ms, rssKb };
  } finally {
    rmSync(rssDir, { recursive: true, force: true });
  }
}

export function natsNodeRows(results) {
  if (!results?.length) return [{ benchmark: 'nats-node', value: 'failed', unit: '', notes: 'see failures' }];
  const rows = results.map((r) => ({
    benchmark: `nats-node: a new node's first call (factorly call) on ${r.events.toLocaleString('en-US')} events`,
    value: r.medianMs,
    unit: 'ms',
    notes: `median of ${r.n}, p90 ${r.p90Ms} ms; peak RSS ${r.rssMb} MB; stream built at ${r.buildEventsPerSecond.toLocaleString('en-US')} events/s`,
  }));
  const small = results[0];
  const large = results.at(-1);
  if (small !== large) {
    const time = round(large.medianMs / small.medianMs, 2);
    const rss = round(large.rssMb / small.rssMb, 2);
    const what = `${large.events.toLocaleString('en-US')} / ${small.events.toLocaleString('en-US')} events`;
    rows.push(
      {
        benchmark: `nats-node: first call, ${what}`,
        value: time,
        unit: 'x',
        notes: `${large.medianMs} vs ${small.medianMs} ms; target <= ${NODE_TIME_TARGET}x: ${time <= NODE_TIME_TARGET ? 'MET' : 'NOT MET'}`,
      },
      {
        benchmark: `nats-node: peak RSS of that call, ${what}`,
        value: rss,
        unit: 'x',
        notes: `${large.rssMb} vs ${small.rssMb} MB; target flat (<= ${NODE_RSS_TARGET}x): ${rss <= NODE_RSS_TARGET ? 'MET' : 'NOT MET'}`,
      },
    );
  }
  return rows;
}
