// Event-log throughput: durable hashed appends to LmdbEventLog, plus the in-memory baseline.
import { fork } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LmdbEventLog } from '../../dist/src/events/lmdb-log.js';
import { MemoryEventLog } from '../../dist/src/events/memory-log.js';
import { verifyChain } from '../../dist/src/events/verify.js';
import { appendConcurrent, appendSequential } from './events.mjs';
import { epochMs, percentile, round } from './stats.mjs';

const WORKER = join(dirname(fileURLToPath(import.meta.url)), '..', 'log-worker.mjs');

/**
 * @param {{ dir: string, target: number, events: number, singleEvents: number, durableAckEvents: number,
 *           batchSize: number, concurrency: number, processes: number, log?: (line: string) => void }} opts
 * @returns {Promise<{ results: object[], failures: string[] }>}
 */
export async function runEventLogBench(opts) {
  const say = opts.log ?? (() => {});
  const results = [];
  const failures = [];
  const run = async (label, fn) => {
    say(`  ${label} ...`);
    try {
      const result = await fn();
      results.push(result);
      for (const problem of result.problems ?? []) failures.push(`${result.id} ${result.name}: ${problem}`);
      say(
        `    ${round(result.eventsPerSecond, 0)} events/s${result.problems?.length ? `  PROBLEMS: ${result.problems.join('; ')}` : ''}`,
      );
    } catch (error) {
      failures.push(`${label}: threw ${error?.stack ?? error}`);
      say(`    FAILED: ${error?.message ?? error}`);
    }
  };

  await warmUp(opts.dir);

  await run('(a) lmdb, 1 writer, 1 event per awaited append', () =>
    inProcess(opts, {
      id: 'a',
      name: 'lmdb 1 writer, 1 event/append, awaited',
      file: 'a.lmdb',
      events: opts.singleEvents,
      batchSize: 1,
    }),
  );
  await run('(a2) lmdb, 1 writer, 1 event per append, awaited until fsynced', () =>
    inProcess(opts, {
      id: 'a2',
      name: 'lmdb 1 writer, 1 event/append, await fsync',
      file: 'a2.lmdb',
      events: opts.durableAckEvents,
      batchSize: 1,
      flushEach: true,
    }),
  );
  await run(`(b) lmdb, 1 writer, ${opts.batchSize} events per append`, () =>
    inProcess(opts, {
      id: 'b',
      name: `lmdb 1 writer, batch ${opts.batchSize}`,
      file: 'b.lmdb',
      events: opts.events,
      batchSize: opts.batchSize,
    }),
  );
  await run(`(c) lmdb, 1 writer, ${opts.concurrency} concurrent single-event appends`, () =>
    inProcess(opts, {
      id: 'c',
      name: `lmdb 1 writer, ${opts.concurrency} concurrent x 1 event`,
      file: 'c.lmdb',
      events: opts.events,
      concurrency: opts.concurrency,
    }),
  );
  // log.durability: commit — acknowledged once committed (survives a killed process, not a power cut).
  await run(`(b-commit) lmdb, 1 writer, ${opts.batchSize} events per append, durability commit`, () =>
    inProcess(opts, {
      id: 'b-commit',
      name: `lmdb 1 writer, batch ${opts.batchSize}, durability commit`,
      file: 'b-commit.lmdb',
      events: opts.events,
      batchSize: opts.batchSize,
      durability: 'commit',
    }),
  );
  await run(`(c-commit) lmdb, 1 writer, ${opts.concurrency} concurrent single-event appends, durability commit`, () =>
    inProcess(opts, {
      id: 'c-commit',
      name: `lmdb 1 writer, ${opts.concurrency} concurrent x 1 event, durability commit`,
      file: 'c-commit.lmdb',
      events: opts.events,
      concurrency: opts.concurrency,
      durability: 'commit',
    }),
  );
  await run(`(d) lmdb, ${opts.processes} processes on one file, ${opts.batchSize} events per append`, () =>
    multiProcess(opts),
  );
  await run(`(e) MemoryEventLog, ${opts.batchSize} events per append`, () => memory(opts));
  return { results, failures };
}

async function warmUp(dir) {
  const log = new LmdbEventLog({ path: join(dir, 'warm.lmdb') });
  await appendSequential(log, { prefix: 'warm', total: 300, batchSize: 100 });
  await appendSequential(log, { prefix: 'warm1', total: 50, batchSize: 1 });
  await log.close();
  const mem = new MemoryEventLog();
  await appendSequential(mem, { prefix: 'warm', total: 300, batchSize: 100 });
}

async function inProcess(opts, spec) {
  const path = join(opts.dir, spec.file);
  const log = new LmdbEventLog({ path, durability: spec.durability ?? 'fsync' });
  let timing;
  try {
    timing = spec.concurrency
      ? await appendConcurrent(log, { prefix: spec.id, total: spec.events, concurrency: spec.concurrency })
      : await appendSequential(log, {
          prefix: spec.id,
          total: spec.events,
          batchSize: spec.batchSize,
          flushEach: spec.flushEach,
        });
  } catch (error) {
    await log.close().catch(() => {});
    throw error;
  }
  const check = await checkLog(log, [{ prefix: spec.id, seqs: timing.seqs }], spec.events);
  await log.close();
  return describe(opts, {
    id: spec.id,
    name: spec.name,
    backend: 'lmdb',
    durable: true,
    durability: spec.durability ?? 'fsync',
    writers: 1,
    batchSize: spec.batchSize ?? 1,
    concurrency: spec.concurrency ?? 1,
    events: spec.events,
    appends: spec.concurrency ? spec.events : Math.ceil(spec.events / spec.batchSize),
    commitMs: timing.commitMs,
    durableMs: timing.durableMs,
    flushObserved: timing.flushObserved,
    latencies: timing.latencies,
    latencyPer: spec.concurrency ? `round of ${spec.concurrency}` : `append of ${spec.batchSize}`,
    check,
    fileBytes: sizeOf(path),
  });
}

async function memory(opts) {
  const log = new MemoryEventLog();
  const timing = await appendSequential(log, { prefix: 'e', total: opts.events, batchSize: opts.batchSize });
  const check = await checkLog(log, [{ prefix: 'e', seqs: timing.seqs }], opts.events);
  await log.close();
  return describe(opts, {
    id: 'e',
    name: `MemoryEventLog, batch ${opts.batchSize} (baseline)`,
    backend: 'memory',
    durable: false,
    writers: 1,
    batchSize: opts.batchSize,
    concurrency: 1,
    events: opts.events,
    appends: Math.ceil(opts.events / opts.batchSize),
    commitMs: timing.commitMs,
    durableMs: timing.durableMs,
    flushObserved: false,
    latencies: timing.latencies,
    latencyPer: `append of ${opts.batchSize}`,
    check,
  });
}

async function multiProcess(opts) {
  const path = join(opts.dir, 'd.lmdb');
  const warmDir = join(opts.dir, 'd-warm');
  mkdirSync(warmDir, { recursive: true });
  const perWorker = Math.ceil(opts.events / opts.processes);
  const total = perWorker * opts.processes;
  const workers = [];
  for (let k = 0; k < opts.processes; k += 1) {
    const prefix = `d${k}`;
    const child = fork(WORKER, [path, prefix, String(perWorker), String(opts.batchSize), warmDir], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    workers.push(track(child, prefix));
  }
  let t0;
  try {
    await withTimeout(Promise.all(workers.map((w) => w.ready)), 60_000, 'workers to open the log');
    t0 = epochMs();
    for (const w of workers) w.child.send({ type: 'go' });
    const done = await withTimeout(Promise.all(workers.map((w) => w.done)), 300_000, 'workers to finish');
    const tEnd = Math.max(...done.map((d) => d.endEpochMs));
    const commitEnd = Math.max(...done.map((d) => d.startEpochMs + d.commitMs));
    const exits = await Promise.all(workers.map((w) => w.exited));
    exits.forEach(({ code, signal }, k) => {
      if (code !== 0) throw new Error(`worker d${k} exited with ${signal ?? `code ${code}`}`);
    });

    const log = new LmdbEventLog({ path });
    const check = await checkLog(
      log,
      done.map((d) => ({ prefix: d.prefix, seqs: d.seqs })),
      total,
    );
    await log.close();
    return describe(opts, {
      id: 'd',
      name: `lmdb ${opts.processes} processes, 1 file, batch ${opts.batchSize}`,
      backend: 'lmdb',
      durable: true,
      writers: opts.processes,
      batchSize: opts.batchSize,
      concurrency: 1,
      events: total,
      appends: Math.ceil(perWorker / opts.batchSize) * opts.processes,
      commitMs: commitEnd - t0,
      durableMs: tEnd - t0,
      flushObserved: done.every((d) => d.flushObserved),
      latencies: done.flatMap((d) => d.latencies),
      latencyPer: `append of ${opts.batchSize}`,
      check,
      fileBytes: sizeOf(path),
      perWorker: done.map((d) => ({
        prefix: d.prefix,
        events: d.seqs.length,
        seconds: round((d.endEpochMs - d.startEpochMs) / 1000, 4),
        eventsPerSecond: round(d.seqs.length / ((d.endEpochMs - d.startEpochMs) / 1000), 0),
        startOffsetMs: round(d.startEpochMs - t0, 2),
      })),
    });
  } finally {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill();
  }
}

/** Wraps a forked worker in promises for its ready/done messages and its exit. */
export function track(child, prefix) {
  const ready = deferred();
  const done = deferred();
  const fail = (error) => {
    ready.reject(error);
    done.reject(error);
  };
  let finished = false;
  child.on('message', (message) => {
    if (message?.type === 'ready') ready.resolve();
    else if (message?.type === 'done') {
      finished = true;
      done.resolve(message);
    } else if (message?.type === 'error') fail(new Error(`worker ${prefix}: ${message.stack ?? message.message}`));
  });
  child.on('error', (error) => fail(new Error(`worker ${prefix}: ${error.message}`)));
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      if (code !== 0 || !finished)
        fail(new Error(`worker ${prefix} exited with ${signal ?? `code ${code}`} before reporting`));
      resolve({ code, signal });
    });
  });
  return { child, prefix, ready: ready.promise, done: done.promise, exited };
}

/** A promise with its settle functions; a rejection nobody awaits yet is not reported as unhandled. */
function deferred() {
  let resolve, reject;
  const promise = new Promise((res, rej) => ((resolve = res), (reject = rej)));
  promise.catch(() => {});
  return { promise, resolve, reject };
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Verifies the chain (seq gap-free, hashes, prevHash links) and, beyond what verifyChain sees,
 * that every seq a writer was handed back holds that writer's event and that no seq was handed
 * out twice — a lost or overwritten event would otherwise still leave a valid chain.
 */
export async function checkLog(log, writers, expected) {
  const problems = [];
  const report = await verifyChain(log.read());
  if (!report.ok) {
    const bad = report.firstBad;
    problems.push(
      `CHAIN BROKEN after ${report.verified} verified event(s): seq ${bad?.seq} ${bad?.kind} (${bad?.reason})`,
    );
  }
  if (report.verified !== expected) problems.push(`verified ${report.verified} event(s), expected ${expected}`);
  const head = await log.head();
  if (head.seq !== expected) problems.push(`head seq is ${head.seq}, expected ${expected}`);

  // A separate full pass: verifyChain stops at the first break, this map must cover every seq.
  const callIdAt = new Map();
  for await (const event of log.read()) callIdAt.set(event.seq, event.data?.callId);
  const owner = new Map();
  let mismatches = 0;
  let firstMismatch;
  for (const { prefix, seqs } of writers) {
    seqs.forEach((seq, i) => {
      const callId = `${prefix}-${i}`;
      if (owner.has(seq)) {
        problems.push(`seq ${seq} was returned to both ${owner.get(seq)} and ${callId}`);
        return;
      }
      owner.set(seq, callId);
      if (callIdAt.get(seq) !== callId) {
        mismatches += 1;
        firstMismatch ??= `seq ${seq} holds ${callIdAt.get(seq)}, but append returned it for ${callId}`;
      }
    });
  }
  if (mismatches) problems.push(`${mismatches} returned seq(s) hold another event; first: ${firstMismatch}`);
  if (owner.size !== expected) problems.push(`writers were handed ${owner.size} distinct seqs, expected ${expected}`);
  for (let seq = 1; seq <= expected; seq += 1) {
    if (!owner.has(seq)) {
      problems.push(`no writer was handed seq ${seq}`);
      break;
    }
  }
  return {
    ok: problems.length === 0 && report.ok,
    verified: report.verified,
    expected,
    headSeq: head.seq,
    firstBad: report.firstBad,
    problems,
  };
}

function describe(opts, r) {
  const seconds = r.durableMs / 1000;
  const eventsPerSecond = r.events / seconds;
  // The target is for appends acknowledged on disk (durability fsync, the default).
  const meetsTarget = r.durable && (r.durability ?? 'fsync') === 'fsync' ? eventsPerSecond >= opts.target : null;
  return {
    id: r.id,
    name: r.name,
    backend: r.backend,
    durable: r.durable,
    durability: r.durability ?? (r.durable ? 'fsync' : null),
    writers: r.writers,
    batchSize: r.batchSize,
    concurrency: r.concurrency,
    events: r.events,
    appends: r.appends,
    seconds: round(seconds, 4),
    eventsPerSecond: round(eventsPerSecond, 0),
    committedSeconds: round(r.commitMs / 1000, 4),
    committedEventsPerSecond: round(r.events / (r.commitMs / 1000), 0),
    flushObserved: r.flushObserved,
    targetEventsPerSecond: opts.target,
    meetsTarget,
    latencyMs: {
      per: r.latencyPer,
      n: r.latencies.length,
      p50: round(percentile(r.latencies, 50)),
      p90: round(percentile(r.latencies, 90)),
      p99: round(percentile(r.latencies, 99)),
      max: round(Math.max(...r.latencies)),
    },
    chain: {
      ok: r.check.ok,
      verified: r.check.verified,
      expected: r.check.expected,
      headSeq: r.check.headSeq,
      firstBad: r.check.firstBad ?? null,
    },
    fileBytes: r.fileBytes ?? null,
    perWorker: r.perWorker,
    problems: r.check.problems,
  };
}

function sizeOf(path) {
  try {
    return statSync(path).size;
  } catch {
    return null;
  }
}
