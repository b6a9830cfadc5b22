#!/usr/bin/env node
// factorly benchmark suite. Run with `npm run bench` (builds first). Node built-ins only.
//  1. event log: durable hashed appends/s to LmdbEventLog (several write patterns, incl. 4
//     processes on one file, each chain verified), and MemoryEventLog as a baseline;
//  2. cli: wall time of `factorly call` on a trivial tool next to the same command run directly;
//  3. vault: unlock time with the shipped Argon2id parameters, and scrubbing a large output.
//  4. shadow: per-call cost of the shadow rule chain (20 rules vs none), in-memory and LMDB logs.
//  5. sandbox: a warm script run with 3 tool calls on SES and QuickJS, next to the 3 calls made directly.
//  6. mcp: tools/call latency and throughput through `factorly serve`/`wrap`, next to the same echo
//     server called directly and behind the npm bridges mcp-proxy and supergateway.
//  7. audit and history: logs verify/stats/--tail/--tool and the web UI's /dashboard on 1M events, factorly call on 300k events of
//     6 h next to an empty log, serve's first call on 1M events next to its later ones.
//  8. nats: the event log on a 3-server JetStream cluster the bench starts (nats-server on PATH):
//     append throughput, the latency a call adds next to LMDB, two nodes appending to one stream;
//     nats-node: a new node's first call and its peak RSS on streams of 1k, 100k and 300k events.
// BENCH_ONLY=mcp,shadow runs only the named sections (log, cli, audit, history, vault, shadow, sandbox, mcp, nats,
// nats-node).
// Prints one table and writes bench/results/latest.json. Exits 1 if any correctness check fails.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderTable, round } from './lib/stats.mjs';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(BENCH_DIR, '..');
const RESULTS_DIR = join(BENCH_DIR, 'results');

const intEnv = (name, fallback) => {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got ${value}`);
  return n;
};

const CONFIG = {
  targetEventsPerSecond: 50_000,
  events: intEnv('BENCH_EVENTS', 20_000), // per variant (b), (c), (d), (e)
  singleEvents: intEnv('BENCH_SINGLE_EVENTS', 2_000), // variant (a)
  durableAckEvents: intEnv('BENCH_DURABLE_ACK_EVENTS', 500), // variant (a2)
  batchSize: 100,
  concurrency: 1_000,
  processes: 4,
  cliRuns: intEnv('BENCH_CLI_RUNS', 15),
  auditEvents: intEnv('BENCH_AUDIT_EVENTS', 1_000_000),
  historyEvents: intEnv('BENCH_HISTORY_EVENTS', 300_000),
  historyRuns: intEnv('BENCH_HISTORY_RUNS', 9),
  cliWarmups: 2,
  vaultRuns: intEnv('BENCH_VAULT_RUNS', 10),
  shadowCalls: intEnv('BENCH_SHADOW_CALLS', 2_000),
  shadowDurableCalls: intEnv('BENCH_SHADOW_DURABLE_CALLS', 300),
  sandboxRuns: intEnv('BENCH_SANDBOX_RUNS', 300),
  sandboxWarmups: 30,
  mcpCalls: intEnv('BENCH_MCP_CALLS', 1_000),
  mcpRounds: 5,
  mcpWarmups: 50,
  mcpLatencySeconds: intEnv('BENCH_MCP_LATENCY_SECONDS', 15),
  mcpLoadSeconds: intEnv('BENCH_MCP_LOAD_SECONDS', 2),
  mcpConcurrency: intEnv('BENCH_MCP_CONCURRENCY', 64),
  natsEvents: intEnv('BENCH_NATS_EVENTS', 5_000),
  natsSingleEvents: intEnv('BENCH_NATS_SINGLE_EVENTS', 500),
  natsCalls: intEnv('BENCH_NATS_CALLS', 300),
  natsNodeEvents: intEnv('BENCH_NATS_NODE_EVENTS', 500),
  natsNodeSizes: (process.env.BENCH_NATS_NODE_SIZES ?? '1000,100000,300000').split(',').map(Number),
  natsNodeRuns: intEnv('BENCH_NATS_NODE_RUNS', 5),
};
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim())) : undefined;
const enabled = (section) => !ONLY || ONLY.has(section);

const say = (line) => process.stderr.write(`${line}\n`);

if (!existsSync(join(REPO, 'dist', 'src', 'events', 'lmdb-log.js'))) {
  say('dist/ is missing: run `npm run bench` (which builds first) or `npm run build`.');
  process.exit(1);
}
// Imported after the check so a missing build gives the message above, not a module error.
const { runEventLogBench } = await import('./lib/log-bench.mjs');
const { runCliBench } = await import('./lib/cli-bench.mjs');
const { runAuditBench, auditRows, serveRow } = await import('./lib/audit-bench.mjs');
const { runHistoryBench, historyRows } = await import('./lib/history-bench.mjs');
const { runVaultBench, vaultRows } = await import('./lib/vault-bench.mjs');
const { runShadowBench, shadowRows } = await import('./lib/shadow.mjs');
const { runSandboxBench, sandboxRows } = await import('./lib/sandbox.mjs');
const { runMcpOverheadBench, mcpRows } = await import('./lib/mcp-overhead.mjs');
const { runNatsBench, natsRows } = await import('./lib/nats-bench.mjs');
const { runNatsNodeBench, natsNodeRows } = await import('./lib/nats-node-bench.mjs');

const tmpBase = process.env.BENCH_TMPDIR || os.tmpdir();
const tmpRoot = mkdtempSync(join(tmpBase, 'factorly-bench-'));
const tmpFs = fsTypeOf(tmpRoot);
const cleanup = () => rmSync(tmpRoot, { recursive: true, force: true });
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    cleanup();
    process.exit(130);
  });
}

const startedAt = new Date();
const failures = [];
let eventLog = [];
let cli = null;
let audit = null;
let history = null;
let vault = null;
let shadow = [];
let sandbox = null;
let mcp = null;
let nats = null;
let natsNode = null;
try {
  say(`factorly bench: temp dir ${tmpRoot} (${tmpFs})`);
  if (enabled('log')) {
    say('event log:');
    const logBench = await runEventLogBench({
      dir: tmpRoot,
      target: CONFIG.targetEventsPerSecond,
      events: CONFIG.events,
      singleEvents: CONFIG.singleEvents,
      durableAckEvents: CONFIG.durableAckEvents,
      batchSize: CONFIG.batchSize,
      concurrency: CONFIG.concurrency,
      processes: CONFIG.processes,
      log: say,
    });
    eventLog = logBench.results;
    failures.push(...logBench.failures);
  }

  if (enabled('cli'))
    try {
      say('cli:');
      const cliBench = await runCliBench({
        repo: REPO,
        tmpRoot,
        runs: CONFIG.cliRuns,
        warmups: CONFIG.cliWarmups,
        baselineRepo: process.env.BENCH_MCP_BASELINE_REPO || undefined,
        log: say,
      });
      cli = cliBench.result;
      failures.push(...cliBench.failures);
    } catch (error) {
      failures.push(`cli: ${error?.stack ?? error}`);
    }

  if (enabled('audit'))
    try {
      say('audit:');
      const auditBench = await runAuditBench({
        repo: REPO,
        dir: tmpRoot,
        events: CONFIG.auditEvents,
        cliRuns: 5,
        log: say,
      });
      audit = auditBench.result;
      failures.push(...auditBench.failures);
    } catch (error) {
      failures.push(`audit: ${error?.stack ?? error}`);
    }

  if (enabled('history'))
    try {
      say('history:');
      const historyBench = await runHistoryBench({
        repo: REPO,
        dir: tmpRoot,
        events: CONFIG.historyEvents,
        runs: CONFIG.historyRuns,
        log: say,
      });
      history = historyBench.result;
      failures.push(...historyBench.failures);
    } catch (error) {
      failures.push(`history: ${error?.stack ?? error}`);
    }

  if (enabled('vault'))
    try {
      say('vault:');
      const vaultBench = await runVaultBench({ tmpRoot, runs: CONFIG.vaultRuns, log: say });
      vault = vaultBench.result;
      failures.push(...vaultBench.failures);
    } catch (error) {
      failures.push(`vault: ${error?.stack ?? error}`);
    }

  if (enabled('shadow'))
    try {
      say('shadow:');
      const shadowBench = await runShadowBench({
        tmpRoot,
        calls: CONFIG.shadowCalls,
        durableCalls: CONFIG.shadowDurableCalls,
        log: say,
      });
      shadow = shadowBench.results;
      failures.push(...shadowBench.failures);
    } catch (error) {
      failures.push(`shadow: ${error?.stack ?? error}`);
    }

  if (enabled('sandbox'))
    try {
      say('sandbox:');
      const sandboxBench = await runSandboxBench({
        tmpRoot,
        runs: CONFIG.sandboxRuns,
        warmups: CONFIG.sandboxWarmups,
        log: say,
      });
      sandbox = sandboxBench.result;
      failures.push(...sandboxBench.failures);
    } catch (error) {
      failures.push(`sandbox: ${error?.stack ?? error}`);
    }

  if (enabled('mcp'))
    try {
      say('mcp:');
      const mcpBench = await runMcpOverheadBench({
        repo: REPO,
        tmpRoot,
        calls: CONFIG.mcpCalls,
        rounds: CONFIG.mcpRounds,
        warmup: CONFIG.mcpWarmups,
        latencySeconds: CONFIG.mcpLatencySeconds,
        loadSeconds: CONFIG.mcpLoadSeconds,
        concurrency: CONFIG.mcpConcurrency,
        // A built checkout of another factorly version (e.g. main) to compare serve with in this run.
        baselineRepo: process.env.BENCH_MCP_BASELINE_REPO || undefined,
        log: say,
      });
      mcp = mcpBench.result;
      failures.push(...mcpBench.failures);
    } catch (error) {
      failures.push(`mcp: ${error?.stack ?? error}`);
    }

  if (enabled('nats'))
    try {
      say('nats:');
      const natsBench = await runNatsBench({
        tmpRoot,
        events: CONFIG.natsEvents,
        singleEvents: CONFIG.natsSingleEvents,
        calls: CONFIG.natsCalls,
        nodeEvents: CONFIG.natsNodeEvents,
        log: say,
      });
      nats = natsBench.results;
      failures.push(...natsBench.failures);
    } catch (error) {
      failures.push(`nats: ${error?.stack ?? error}`);
    }

  if (enabled('nats-node'))
    try {
      say('nats-node:');
      const nodeBench = await runNatsNodeBench({
        repo: REPO,
        tmpRoot,
        sizes: CONFIG.natsNodeSizes,
        runs: CONFIG.natsNodeRuns,
        log: say,
      });
      natsNode = nodeBench.results;
      failures.push(...nodeBench.failures);
    } catch (error) {
      failures.push(`nats-node: ${error?.stack ?? error}`);
    }
} finally {
  cleanup();
}

const sections = [
  ['log', () => eventLogRows(eventLog)],
  ['cli', () => cliRows(cli)],
  ['audit', () => auditRows(audit)],
  ['history', () => historyRows(history, serveRow)],
  ['vault', () => vaultRows(vault)],
  ['shadow', () => shadowRows(shadow)],
  ['sandbox', () => sandboxRows(sandbox)],
  ['mcp', () => mcpRows(mcp)],
  ['nats', () => natsRows(nats ?? [])],
  ['nats-node', () => natsNodeRows(natsNode)],
];
const rows = sections.filter(([name]) => enabled(name)).flatMap(([, rowsOf]) => rowsOf());
const output = {
  schema: 1,
  timestamp: startedAt.toISOString(),
  durationSeconds: round((Date.now() - startedAt.getTime()) / 1000, 1),
  ok: failures.length === 0,
  failures,
  machine: machineInfo(tmpFs),
  config: CONFIG,
  eventLog,
  cli,
  audit,
  history,
  vault,
  shadow,
  sandbox,
  mcp,
  nats,
  natsNode,
  table: rows,
};
mkdirSync(RESULTS_DIR, { recursive: true });
const resultsFile = join(RESULTS_DIR, 'latest.json');
writeFileSync(resultsFile, `${JSON.stringify(output, null, 2)}\n`);

const m = output.machine;
console.log('');
console.log(
  `factorly bench  ${output.timestamp}  node ${m.node}  ${m.cpus}x ${m.cpuModel}  ${m.os}  tmp fs: ${m.tmpFs}`,
);
console.log('');
console.log(renderTable(rows));
console.log('');
console.log(`results: ${resultsFile}  (${output.durationSeconds} s)`);
if (failures.length) {
  console.error('');
  console.error(`BENCH FAILED: ${failures.length} correctness problem(s):`);
  for (const f of failures) console.error(`  - ${f}`);
  process.exitCode = 1;
}

function eventLogRows(results) {
  const target = CONFIG.targetEventsPerSecond;
  return results.map((r) => {
    const lat = r.latencyMs;
    const notes = [`${r.events.toLocaleString('en-US')} ev`, `p50/p90 ${lat.p50}/${lat.p90} ms per ${lat.per}`];
    if (r.durable && r.meetsTarget !== null) {
      notes.push(`commit-only ${Math.round(r.committedEventsPerSecond).toLocaleString('en-US')}/s`);
      notes.push(`target >=${target.toLocaleString('en-US')}/s durable: ${r.meetsTarget ? 'MET' : 'NOT MET'}`);
    } else if (r.durable) {
      notes.push(
        `acknowledged at commit: ${Math.round(r.committedEventsPerSecond).toLocaleString('en-US')}/s; durability commit survives a killed process, not a power cut`,
      );
    } else {
      notes.push('not durable: baseline only');
    }
    notes.push(
      r.chain.ok
        ? `chain ok ${r.chain.verified}/${r.chain.expected}`
        : `CHAIN FAILED ${r.chain.verified}/${r.chain.expected}`,
    );
    return { benchmark: `log ${r.id}: ${r.name}`, value: r.eventsPerSecond, unit: 'events/s', notes: notes.join('; ') };
  });
}

function cliRows(result) {
  if (!result) return [{ benchmark: 'cli', value: 'failed', unit: '', notes: 'see failures' }];
  const rows = [];
  for (const c of result.commands) {
    rows.push({
      benchmark: `cli ${c.name}, median`,
      value: c.medianMs,
      unit: 'ms',
      notes: `n=${c.n}, min ${c.minMs}, max ${c.maxMs}`,
    });
    rows.push({ benchmark: `cli ${c.name}, p90`, value: c.p90Ms, unit: 'ms', notes: '' });
  }
  const o = result.overhead;
  rows.push({
    benchmark: 'cli overhead: call - direct, median',
    value: o.callMinusDirectMedianMs,
    unit: 'ms',
    notes: `${o.callOverDirectRatio}x the direct command; p90 diff ${o.callMinusDirectP90Ms} ms`,
  });
  rows.push({
    benchmark: 'cli overhead: call - --version, median',
    value: o.callMinusVersionMedianMs,
    unit: 'ms',
    notes: `config + kernel + log + spawn; ${result.callLog.eventsPerCall} events recorded per call`,
  });
  rows.push({
    benchmark: 'cli overhead: --version - node -e 0, median',
    value: o.versionMinusNodeMedianMs,
    unit: 'ms',
    notes: 'start-up beyond bare Node',
  });
  rows.push({
    benchmark: 'cli overhead: a linked plugin importing factorly (resolve hook + its load), median',
    value: o.linkedPluginMinusCallMedianMs,
    unit: 'ms',
    notes: 'call with a linked rule plugin that imports factorly at run time, minus the plain call',
  });
  const callMinusNode = round(o.callMinusVersionMedianMs + o.versionMinusNodeMedianMs);
  rows.push({
    benchmark: 'cli target: call <= node + 150 ms',
    value: callMinusNode,
    unit: 'ms',
    notes: `factorly call - node -e 0, medians: ${callMinusNode <= 150 ? 'MET' : 'NOT MET'}`,
  });
  for (const [engine, over] of [
    ['SES', o.sesMinusCallMedianMs],
    ['QuickJS', o.quickjsMinusCallMedianMs],
  ])
    rows.push({
      benchmark: `cli target: a code tool's call (${engine}) <= the cli tool's call + 60 ms`,
      value: over,
      unit: 'ms',
      notes: `the same greeting as a code tool, minus factorly call greet, medians: ${over <= 60 ? 'MET' : 'NOT MET'}`,
    });
  rows.push({
    benchmark: 'cli target: --version <= node + 100 ms',
    value: o.versionMinusNodeMedianMs,
    unit: 'ms',
    notes: `${o.versionMinusNodeMedianMs <= 100 ? 'MET' : 'NOT MET'}`,
  });
  if (o.callOverBaselineRatio !== undefined)
    rows.push({
      benchmark: 'cli call / baseline build call, medians',
      value: o.callOverBaselineRatio,
      unit: 'x',
      notes: `baseline call - node -e 0: ${o.baselineCallMinusNodeMedianMs} ms`,
    });
  return rows;
}

function machineInfo(tmpFsType) {
  const cpus = os.cpus();
  return {
    node: process.version,
    v8: process.versions.v8,
    platform: process.platform,
    arch: process.arch,
    os: `${os.type()} ${os.release()}`,
    cpus: cpus.length,
    availableParallelism: os.availableParallelism?.() ?? cpus.length,
    cpuModel: cpus[0]?.model?.trim() ?? 'unknown',
    cpuMHz: cpus[0]?.speed ?? null,
    totalMemMB: Math.round(os.totalmem() / 2 ** 20),
    loadAvgAtEnd: os.loadavg().map((v) => round(v, 2)),
    tmpDir: tmpBase,
    tmpFs: tmpFsType,
    factorly: readVersion(join(REPO, 'package.json')),
    lmdb: readVersion(join(REPO, 'node_modules', 'lmdb', 'package.json')),
    gitCommit: gitCommit(),
  };
}

function readVersion(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8')).version;
  } catch {
    return null;
  }
}

/** Read-only: the commit dist/ was (probably) built from; the working tree may differ. */
function gitCommit() {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: REPO,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return null;
  }
}

/** The file system the logs were written to: fsync costs differ wildly (tmpfs makes it free). */
function fsTypeOf(path) {
  const names = {
    0xef53: 'ext4',
    0x01021994: 'tmpfs',
    0x794c7630: 'overlayfs',
    0x58465342: 'xfs',
    0x9123683e: 'btrfs',
    0x2fc12fc1: 'zfs',
    0x6969: 'nfs',
    0x65735546: 'fuse',
    0x1021997: 'v9fs',
    0x5346544e: 'ntfs',
  };
  try {
    const type = statfsSync(path).type;
    return names[type] ?? `0x${type.toString(16)}`;
  } catch {
    return 'unknown';
  }
}
