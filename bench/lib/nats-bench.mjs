// The event log on NATS JetStream beside LMDB: append throughput of one writer (1 event per awaited
// append, and batches of 100), the time a call adds through the kernel (no-op tool, the shadow
// rules) on NATS next to LMDB, and two nodes (processes) appending to one stream at once. Starts
// its own 3-server JetStream cluster on loopback (replicas 3) with the system's nats-server.
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKernel } from '../../dist/src/kernel/kernel.js';
import { ReplicatedEventLog } from '../../dist/src/events/replicated-log.js';
import { verifyChain } from '../../dist/src/events/verify.js';
import { NatsBatchStream } from '../../plugins-official/log-nats/dist/src/nats-stream.js';
import { natsSettingsOf } from '../../plugins-official/log-nats/dist/src/nats-settings.js';
import { plugin as natsPlugin } from '../../plugins-official/log-nats/dist/src/plugin.js';
import { plugin as shadowPlugin } from '../../plugins-official/shadow/dist/src/plugin.js';
import { startNatsCluster } from '../../test/helpers/nats-cluster.mjs';
import { appendConcurrent, appendSequential } from './events.mjs';
import { inline, noopPlugin } from './noop-plugin.mjs';
import { now, percentile, round } from './stats.mjs';

const WORKER = join(dirname(fileURLToPath(import.meta.url)), '..', 'nats-worker.mjs');
const noopProvider = noopPlugin();
let streams = 0;

/**
 * @param {{ tmpRoot: string, events: number, singleEvents: number, calls: number, nodeEvents: number, log?: (line: string) => void }} opts
 */
export async function runNatsBench(opts) {
  const say = opts.log ?? (() => {});
  const failures = [];
  const results = [];
  const cluster = await startNatsCluster(3);
  const open = (stream) =>
    new ReplicatedEventLog(
      new NatsBatchStream(natsSettingsOf({ servers: cluster.servers, stream, replicas: 3 }), async () => undefined),
      { timeoutMs: 30_000 },
    );
  const run = async (label, fn) => {
    say(`  ${label} ...`);
    try {
      const result = await fn();
      results.push(result);
      say(`    ${result.value} ${result.unit}`);
    } catch (error) {
      failures.push(`nats ${label}: ${error?.stack ?? error}`);
    }
  };
  try {
    for (const [id, batchSize, total] of [
      ['n1', 1, opts.singleEvents],
      ['n2', 100, opts.events],
    ]) {
      await run(`(${id}) nats, 1 writer, ${batchSize} event(s) per awaited append`, async () => {
        const stream = `bench-${id}-${(streams += 1)}`;
        const log = open(stream);
        await appendSequential(log, { prefix: `${id}-warm`, total: 50, batchSize: Math.min(batchSize, 50) });
        const result = await appendSequential(log, { prefix: id, total, batchSize });
        const chain = await verifyChain(log.read());
        await log.close();
        if (!chain.ok) failures.push(`nats ${id}: chain failed at ${chain.firstBad?.seq}`);
        return {
          id,
          name: `nats 3 replicas, 1 writer, ${batchSize === 1 ? '1 event/append, awaited' : `batch ${batchSize}`}`,
          value: round((total / result.commitMs) * 1000, 0),
          unit: 'events/s',
          notes: `${total} ev; p50/p90 ${round(percentile(result.latencies, 50))}/${round(percentile(result.latencies, 90))} ms per append; chain ${chain.ok ? 'ok' : 'FAILED'}`,
        };
      });
    }
    await run('(n3) nats, 2 nodes (processes), 16 concurrent single-event appends each', () =>
      twoNodes(cluster.servers, opts.nodeEvents, open, failures),
    );
    const latency = {};
    for (const engine of ['lmdb', 'nats']) {
      await run(`call through the kernel, ${engine} log`, async () => {
        latency[engine] = await callLatency(opts.tmpRoot, engine, cluster.servers, opts.calls, failures);
        return {
          id: `call-${engine}`,
          name: `call (no-op tool, shadow rules) on ${engine}, p50`,
          value: latency[engine].p50,
          unit: 'ms',
          notes: `n=${opts.calls}; p99 ${latency[engine].p99} ms`,
        };
      });
    }
    if (latency.lmdb && latency.nats) {
      results.push({
        id: 'call-added',
        name: 'call latency nats adds over lmdb, p50',
        value: round(latency.nats.p50 - latency.lmdb.p50),
        unit: 'ms',
        notes: `3 replicas on loopback; p99 difference ${round(latency.nats.p99 - latency.lmdb.p99)} ms`,
      });
    }
  } finally {
    await cluster.stop();
  }
  return { results, failures };
}

async function twoNodes(servers, perNode, open, failures) {
  const stream = `bench-two-${(streams += 1)}`;
  const seed = open(stream);
  await seed.head();
  await seed.close();
  const workers = ['a', 'b'].map((prefix) =>
    fork(WORKER, [JSON.stringify(servers), stream, prefix, String(perNode), '16'], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  const message = (child, type) =>
    new Promise((resolve, reject) => {
      child.on('message', (m) => (m.type === type ? resolve(m) : m.type === 'error' && reject(new Error(m.message))));
      child.once('exit', (code) => code !== 0 && reject(new Error(`worker exited ${code}`)));
    });
  await Promise.all(workers.map((child) => message(child, 'ready')));
  const t0 = now();
  const done = Promise.all(workers.map((child) => message(child, 'done')));
  for (const child of workers) child.send({ type: 'go' });
  await done;
  const ms = now() - t0;
  const reader = open(stream);
  const chain = await verifyChain(reader.read());
  await reader.close();
  if (!chain.ok || chain.verified !== 2 * perNode)
    failures.push(`nats n3: chain ${chain.ok ? 'ok' : 'FAILED'}, ${chain.verified} of ${2 * perNode} events`);
  return {
    id: 'n3',
    name: 'nats 3 replicas, 2 nodes, 16 concurrent appends each',
    value: round(((2 * perNode) / ms) * 1000, 0),
    unit: 'events/s',
    notes: `${2 * perNode} ev; chain ${chain.ok ? 'ok' : 'FAILED'} ${chain.verified}`,
  };
}

async function callLatency(tmpRoot, engine, servers, calls, failures) {
  const dir = mkdtempSync(join(tmpRoot, `nats-call-${engine}-`));
  mkdirSync(join(dir, '.factorly'));
  const log =
    engine === 'nats'
      ? `log:\n  engine: nats\n  servers: [${servers.join(', ')}]\n  stream: bench-call-${(streams += 1)}\n  replicas: 3\n`
      : '';
  writeFileSync(
    join(dir, '.factorly', 'factorly.yaml'),
    `${log}tools:\n  noop:\n    type: noop\n    parameters: [{name: i, type: integer}]\n    shadow: {rate_limit: 1000000/hour}\n`,
  );
  const kernel = await createKernel({
    cwd: dir,
    globalDir: join(dir, 'no-global'),
    inlinePlugins: [noopProvider, shadowPlugin, natsPlugin].map(inline),
  });
  try {
    const samples = [];
    for (let i = 0; i < calls + 30; i += 1) {
      const t0 = now();
      const outcome = await kernel.pipeline.call({ tool: 'noop', params: { i }, iface: 'mcp' });
      if (outcome.status !== 'success')
        failures.push(`nats call ${engine}: call ${i} was ${outcome.status}: ${outcome.error}`);
      if (i >= 30) samples.push(now() - t0);
    }
    return { p50: round(percentile(samples, 50)), p99: round(percentile(samples, 99)) };
  } finally {
    await kernel.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function natsRows(results) {
  return results.map((r) => ({ benchmark: `nats ${r.id}: ${r.name}`, value: r.value, unit: r.unit, notes: r.notes }));
}
