// Audit at scale: build an N-event log (default 1,000,000), then measure verification (in process,
// and `factorly logs verify` as a user runs it, with its peak memory) and replay throughput, and the
// wall time of `factorly logs --tail 20` (CLI start included) on it.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { now, round, summarize } from './stats.mjs';

export async function runAuditBench({ repo, dir, events, cliRuns, log }) {
  const { LmdbEventLog } = await import(join(repo, 'dist/src/events/lmdb-log.js'));
  const { verifyLogFile } = await import(join(repo, 'dist/src/events/verify-log.js'));
  const { replay } = await import(join(repo, 'dist/src/events/projection.js'));
  const { auditProjection } = await import(join(repo, 'dist/src/events/projections/audit.js'));
  const project = join(dir, 'audit-project');
  mkdirSync(join(project, '.factorly'), { recursive: true });
  writeFileSync(join(project, '.factorly', 'factorly.yaml'), 'tools:\n  t: {type: cli, command: "true"}\n');
  const path = join(project, '.factorly', 'events.lmdb');
  const failures = [];

  log(`  building a ${events.toLocaleString('en-US')}-event log …`);
  const writer = new LmdbEventLog({ path });
  const built = now();
  for (let call = 0; call < events / 2; call += 500) {
    const batch = [];
    for (let i = call; i < Math.min(call + 500, events / 2); i += 1) batch.push(...callPair(i));
    await writer.append(batch);
  }
  const buildMs = now() - built;
  await writer.close();

  let started = now();
  const report = await verifyLogFile(path);
  const verifyMs = now() - started;
  if (!report.ok || report.verified !== events) failures.push(`audit: verify gave ${JSON.stringify(report.findings)} for ${events} events`);
  log('  timing `factorly logs verify` …');
  const cliVerify = await timedCli(repo, project, ['logs', 'verify']);
  if (cliVerify.status !== 0) failures.push(`audit: factorly logs verify exited ${cliVerify.status}: ${cliVerify.stderr}`);
  const reader = new LmdbEventLog({ path });
  started = now();
  const audit = await replay(reader, auditProjection);
  const replayMs = now() - started;
  if (audit.order.length !== events / 2) failures.push(`audit: replay found ${audit.order.length} calls, expected ${events / 2}`);
  await reader.close();

  log('  timing `factorly logs --tail 20` …');
  const samples = [];
  for (let run = 0; run < cliRuns + 1; run += 1) {
    const t = now();
    const result = spawnSync(process.execPath, [join(repo, 'bin/run.js'), 'logs', '--tail', '20'], { cwd: project, encoding: 'utf8' });
    const elapsed = now() - t;
    if (result.status !== 0 || result.stdout.split('\n').length < 21) failures.push(`audit: logs --tail 20 failed: ${result.stderr}`);
    if (run > 0) samples.push(elapsed);
  }
  return {
    failures,
    result: {
      events,
      buildEventsPerSecond: Math.round(events / (buildMs / 1000)),
      verifyEventsPerSecond: Math.round(events / (verifyMs / 1000)),
      cliVerifyEventsPerSecond: Math.round(events / (cliVerify.ms / 1000)),
      cliVerifyPeakRssMb: round(cliVerify.peakRssKb / 1024, 0),
      cliVerifyPeakAnonMb: round(cliVerify.peakAnonKb / 1024, 0),
      replayEventsPerSecond: Math.round(events / (replayMs / 1000)),
      tail20: summarize(samples),
    },
  };
}

/**
 * Runs the CLI and samples its memory from /proc while it runs: the peak resident set (VmHWM, which
 * counts the LMDB file's pages mapped in as it is read) and the peak of the anonymous part (heap,
 * buffers: what the process itself allocates).
 */
function timedCli(repo, cwd, args) {
  return new Promise((resolve) => {
    const t = now();
    const child = spawn(process.execPath, [join(repo, 'bin/run.js'), ...args], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let peakRssKb = 0;
    let peakAnonKb = 0;
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const sample = () => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        peakRssKb = Math.max(peakRssKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
        peakAnonKb = Math.max(peakAnonKb, Number(/RssAnon:\s+(\d+)/.exec(status)?.[1] ?? 0));
      } catch {
        // exited between samples
      }
    };
    const timer = setInterval(sample, 20);
    child.on('exit', (status) => {
      clearInterval(timer);
      resolve({ status, stderr, ms: now() - t, peakRssKb, peakAnonKb });
    });
  });
}

function callPair(i) {
  const callId = `call-${i}`;
  return [
    { type: 'call.requested', data: { callId, rootId: callId, tool: `tool.${i % 50}`, params: { n: i, q: 'some text' }, iface: i % 3 ? 'mcp' : 'cli', agentId: `agent-${i % 7}` } },
    { type: 'call.completed', data: { callId, status: i % 11 ? 'success' : 'error', exitCode: i % 11 ? 0 : 1, output: { text: 'ok', bytes: 2, sha256: 'x', truncated: false }, durationMs: i % 100 } },
  ];
}

export function auditRows(result) {
  if (!result) return [{ benchmark: 'audit', value: 'failed', unit: '', notes: 'see failures' }];
  const n = result.events.toLocaleString('en-US');
  return [
    { benchmark: 'audit: build log (append, batches of 1000)', value: result.buildEventsPerSecond, unit: 'events/s', notes: `${n} events` },
    { benchmark: 'audit: verify in process (chain, indexes, Merkle tree)', value: result.verifyEventsPerSecond, unit: 'events/s', notes: `${n} events; target >=150,000/s: ${result.verifyEventsPerSecond >= 150_000 ? 'MET' : 'NOT MET'}` },
    { benchmark: 'audit: factorly logs verify, CLI start included', value: result.cliVerifyEventsPerSecond, unit: 'events/s', notes: `${n} events; peak RSS ${result.cliVerifyPeakRssMb} MB (mapped file pages included), peak anonymous ${result.cliVerifyPeakAnonMb} MB` },
    { benchmark: 'audit: replay audit projection', value: result.replayEventsPerSecond, unit: 'events/s', notes: `${n} events` },
    { benchmark: 'audit: factorly logs --tail 20, median', value: round(result.tail20.medianMs, 1), unit: 'ms', notes: `on ${n} events, CLI start included; p90 ${round(result.tail20.p90Ms, 1)} ms; target <=300 ms: ${result.tail20.medianMs <= 300 ? 'MET' : 'NOT MET'}` },
  ];
}
