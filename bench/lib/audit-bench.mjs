// Audit at scale: build an N-event log (default 1,000,000), then measure chain verification and
// replay throughput, and the wall time of `factorly logs --tail 20` (CLI start included) on it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { now, round, summarize } from './stats.mjs';

export async function runAuditBench({ repo, dir, events, cliRuns, log }) {
  const { LmdbEventLog } = await import(join(repo, 'dist/src/events/lmdb-log.js'));
  const { verifyChain } = await import(join(repo, 'dist/src/events/verify.js'));
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

  const reader = new LmdbEventLog({ path });
  let started = now();
  const report = await verifyChain(reader.read(), await reader.attestedHead());
  const verifyMs = now() - started;
  if (!report.ok || report.verified !== events) failures.push(`audit: verify gave ${JSON.stringify(report)} for ${events} events`);
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
      replayEventsPerSecond: Math.round(events / (replayMs / 1000)),
      tail20: summarize(samples),
    },
  };
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
    { benchmark: 'audit: logs verify (chain walk)', value: result.verifyEventsPerSecond, unit: 'events/s', notes: `${n} events; target >=150,000/s: ${result.verifyEventsPerSecond >= 150_000 ? 'MET' : 'NOT MET'}` },
    { benchmark: 'audit: replay audit projection', value: result.replayEventsPerSecond, unit: 'events/s', notes: `${n} events` },
    { benchmark: 'audit: factorly logs --tail 20, median', value: round(result.tail20.medianMs, 1), unit: 'ms', notes: `on ${n} events, CLI start included; p90 ${round(result.tail20.p90Ms, 1)} ms; target <=300 ms: ${result.tail20.medianMs <= 300 ? 'MET' : 'NOT MET'}` },
  ];
}
