// What factorly adds to an MCP tools/call, next to calling the same echo server directly and next to
// the npm bridges mcp-proxy and supergateway --stateful fronting it. Two measures per route:
//  - latency: sequential calls with the MCP SDK client (the same client for every route), taken in
//    interleaved rounds so drift in machine load hits every route alike; p50/p99 and the overhead
//    over the direct stdio call;
//  - throughput: calls/s at a fixed concurrency from a raw load generator (bench/lib/mcp-load.mjs).
// factorly runs with its defaults: governance (shadow rules) and the durable LMDB audit log on.
import { join } from 'node:path';
import { LmdbEventLog } from '../../dist/src/events/lmdb-log.js';
import { verifyChain } from '../../dist/src/events/verify.js';
import { callBodies, openHttpLoad, openStdioLoad } from './mcp-load.mjs';
import { connectClient, defineRoutes, startHttp, stopChild } from './mcp-routes.mjs';
import { pipelineLoad } from './pipeline-load.mjs';
import { now, percentile, round } from './stats.mjs';

/** Routes started together: each is two to four Node processes. */
const STARTING_AT_ONCE = 3;

export const MCP_TARGETS = {
  stdioP50OverheadMs: 1.0,
  stdioP50StretchMs: 0.5,
  /** stdio p99 at most this many times direct's p99, plus `stdioP99PlusMs`. */
  stdioP99Times: 2,
  stdioP99PlusMs: 2,
  /** stdio throughput at least this share of direct stdio's in the same run; HTTP at least the bridges'. */
  stdioShareOfDirect: 0.25,
  concurrency: 64,
  pipelineCpuUsPerCall: 100,
};

/**
 * @param {{ repo: string, tmpRoot: string, calls: number, rounds: number, warmup: number,
 *   latencySeconds: number, loadSeconds: number, concurrency: number, baselineRepo?: string,
 *   log?: (line: string) => void }} opts
 */
export async function runMcpOverheadBench(opts) {
  const started = now();
  const log = opts.log ?? (() => {});
  const say = (line) => log(`${line} [${((now() - started) / 1000).toFixed(1)} s]`);
  const failures = [];
  const routes = await defineRoutes({ repo: opts.repo, tmpRoot: opts.tmpRoot, baselineRepo: opts.baselineRepo });
  const durableAppend = await durableAppendLatency(opts.tmpRoot);
  say(`  durable LMDB append (1 event, awaited): p50 ${durableAppend.p50Ms} ms, p99 ${durableAppend.p99Ms} ms`);
  const pipeline = [];
  for (const [label, repo] of [
    ['current', opts.repo],
    ...(opts.baselineRepo ? [['baseline', opts.baselineRepo]] : []),
  ]) {
    try {
      const r = await pipelineLoad({
        repo,
        tmpRoot: opts.tmpRoot,
        seconds: opts.loadSeconds,
        concurrency: opts.concurrency,
        label,
      });
      pipeline.push(r);
      say(
        `  kernel pipeline in-process (${label} build), c=${opts.concurrency}: ${r.callsPerSecond} calls/s, ${r.cpuUsPerCall} us CPU per call`,
      );
      if (r.failed)
        failures.push(`mcp: ${r.failed} of ${r.calls} in-process pipeline calls (${label}) did not succeed`);
    } catch (error) {
      failures.push(`mcp: in-process pipeline load (${label}) failed: ${error?.message ?? error}`);
    }
  }
  say(`  starting ${routes.length} routes (each with an SDK client and a load session) ...`);
  const open = await openRoutes(routes, say, failures);
  let latency;
  let throughput;
  try {
    latency = await measureLatency(open, opts, say);
    throughput = await measureThroughput(open, opts, say, failures);
  } finally {
    await Promise.all(open.map(closeRoute));
  }
  const chain = await checkServeLog(join(opts.tmpRoot, 'mcp-serve', '.factorly', 'events.lmdb'), failures);
  const commitChain = await checkServeLog(join(opts.tmpRoot, 'mcp-serve-commit', '.factorly', 'events.lmdb'), failures);
  const results = routes.map((route) => ({
    id: route.id,
    name: route.name,
    transport: route.transport,
    ...latency.get(route.id),
    throughput: throughput.get(route.id) ?? null,
  }));
  withOverheads(results);
  const config = pick(opts, ['calls', 'rounds', 'warmup', 'latencySeconds', 'loadSeconds', 'concurrency']);
  return {
    result: {
      config,
      routes: results,
      targets: targetsOf(results),
      durableAppend,
      pipeline,
      serveLog: chain,
      serveCommitLog: commitChain,
    },
    failures,
  };
}

/**
 * Starts the routes a few at a time (start-up is most of the wall time; all at once starves a
 * small machine): an HTTP route's server, then the SDK client and a load session (stdio: a
 * process of its own).
 */
async function openRoutes(routes, say, failures) {
  const settled = await inWaves(routes, STARTING_AT_ONCE, async (route) => {
    const entry = { route };
    try {
      if (route.transport === 'http') entry.server = await startHttp(route);
      const [client, load] = await Promise.allSettled([
        connectClient(route, entry.server?.url),
        route.transport === 'http' ? lazyHttpLoad(entry.server.url) : openStdioLoad(route),
      ]);
      entry.client = client.value;
      entry.load = load.value;
      if (client.status === 'rejected') throw client.reason;
      if (load.status === 'rejected') throw load.reason;
      const { tools } = await entry.client.listTools();
      if (!tools.some((tool) => tool.name === 'echo'))
        throw new Error(`tools/list has no "echo" (got ${tools.map((t) => t.name).join(', ')})`);
      say(`    ${route.id}: ready`);
      return entry;
    } catch (error) {
      failures.push(`mcp ${route.id}: could not start: ${error?.message ?? error}`);
      await closeRoute(entry);
      return undefined;
    }
  });
  return settled.filter(Boolean);
}

/** `task` over `items`, at most `width` at a time, results in order. */
async function inWaves(items, width, task) {
  const results = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await task(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  return results;
}

/** An HTTP load session opened when it runs: an idle keep-alive socket could be closed by then. */
function lazyHttpLoad(url) {
  return {
    async run(load) {
      const session = await openHttpLoad(url);
      try {
        return await session.run(load);
      } finally {
        await session.close();
      }
    },
    close: async () => undefined,
  };
}

async function closeRoute({ client, load, server }) {
  await client?.close().catch(() => undefined);
  await load?.close().catch(() => undefined);
  await stopChild(server?.child);
}

/** Times up to `calls` sequential SDK calls per route, in rounds that rotate the order. */
async function measureLatency(open, opts, say) {
  const samples = new Map(open.map(({ route }) => [route.id, []]));
  say(
    `  latency: ${open.length} routes, ${opts.warmup} warm-up + up to ${opts.calls} calls each in ${opts.rounds} interleaved rounds (${opts.latencySeconds} s in all) ...`,
  );
  let id = 0;
  const call = async ({ route, client }, record) => {
    id += 1;
    const text = `m${id}`; // distinct params: identical calls are what loop detection blocks
    const t0 = now();
    const result = await client.callTool({ name: 'echo', arguments: { text } });
    const ms = now() - t0;
    if (result.isError || result.content?.[0]?.text !== text)
      throw new Error(`${route.id}: echo answered ${JSON.stringify(result).slice(0, 300)}`);
    if (record) samples.get(route.id).push(ms);
  };
  for (const entry of open) {
    const until = now() + 500;
    for (let i = 0; i < opts.warmup && (i < 5 || now() < until); i += 1) await call(entry, false);
  }
  const perRound = Math.ceil(opts.calls / opts.rounds);
  // A loaded machine makes every call slow: each route gets an equal slice of the time budget.
  const sliceMs = (opts.latencySeconds * 1000) / (opts.rounds * Math.max(open.length, 1));
  for (let round = 0; round < opts.rounds; round += 1) {
    // Rotate the order each round so no route always runs right after the same neighbour.
    for (let k = 0; k < open.length; k += 1) {
      const entry = open[(k + round) % open.length];
      const until = now() + sliceMs;
      for (let i = 0; i < perRound && now() < until; i += 1) await call(entry, true);
    }
  }
  const stats = new Map();
  for (const [routeId, values] of samples) {
    if (values.length === 0) continue;
    stats.set(routeId, {
      n: values.length,
      p50Ms: round(percentile(values, 50), 4),
      p99Ms: round(percentile(values, 99), 4),
      meanMs: round(values.reduce((a, b) => a + b, 0) / values.length, 4),
    });
  }
  return stats;
}

/** Each route's load session driven on its own at `concurrency` for `loadSeconds`. */
async function measureThroughput(open, opts, say, failures) {
  const out = new Map();
  let nextId = 1_000_000;
  const slice = (count) => {
    const bodies = callBodies(count, nextId);
    nextId += count;
    return bodies;
  };
  say(`  throughput: concurrency ${opts.concurrency}, ${opts.loadSeconds} s per route ...`);
  for (const { route, load } of open) {
    try {
      // Enough bodies that the clock runs out first, even on a fast machine.
      const r = summarizeLoad(
        await load.run({
          warmup: { bodies: slice(Math.max(opts.concurrency * 4, 500)), seconds: Math.min(1, opts.loadSeconds / 2) },
          measured: { bodies: slice(Math.ceil(opts.loadSeconds * 40_000)), seconds: opts.loadSeconds },
          concurrency: opts.concurrency,
        }),
      );
      out.set(route.id, r);
      say(`    ${route.id}: ${Math.round(r.callsPerSecond)} calls/s${r.errors ? `, ${r.errors} errors` : ''}`);
      if (r.errors)
        failures.push(
          `mcp ${route.id}: ${r.errors} of ${r.calls} calls under load were not echoed; first: ${r.firstError}`,
        );
    } catch (error) {
      failures.push(`mcp ${route.id}: load failed: ${error?.message ?? error}`);
    }
  }
  return out;
}

function summarizeLoad(r) {
  return {
    calls: r.calls,
    seconds: round(r.seconds, 3),
    callsPerSecond: round(r.callsPerSecond, 0),
    errors: r.errors,
    ...(r.firstError ? { firstError: r.firstError } : {}),
  };
}

/** Overheads against the direct stdio call (what an agent would pay without a proxy), and against direct HTTP for HTTP routes. */
function withOverheads(results) {
  const direct = results.find((r) => r.id === 'direct');
  const directHttp = results.find((r) => r.id === 'direct-http');
  for (const r of results) {
    if (r.p50Ms === undefined) continue;
    if (direct?.p50Ms !== undefined) {
      r.overP50Ms = round(r.p50Ms - direct.p50Ms, 4);
      r.overP99Ms = round(r.p99Ms - direct.p99Ms, 4);
    }
    if (r.transport === 'http' && directHttp?.p50Ms !== undefined) {
      r.overHttpP50Ms = round(r.p50Ms - directHttp.p50Ms, 4);
      r.overHttpP99Ms = round(r.p99Ms - directHttp.p99Ms, 4);
    }
  }
}

/** The targets, each `true`/`false`, or `null` when a route they compare was not measured. */
function targetsOf(results) {
  const by = Object.fromEntries(results.map((r) => [r.id, r]));
  const bridges = results.filter((r) => ['mcp-proxy', 'supergateway'].includes(r.id));
  const measured = (r) => r?.p50Ms !== undefined;
  const fasterThanBridges = (id) =>
    measured(by[id]) && bridges.length === 2 && bridges.every(measured)
      ? bridges.every((b) => by[id].p50Ms < b.p50Ms && by[id].p99Ms < b.p99Ms)
      : null;
  const versusDirect = (id, test) => (measured(by[id]) && measured(by.direct) ? test(by[id], by.direct) : null);
  const p50 = (id, limitMs) => versusDirect(id, (r) => r.overP50Ms <= limitMs);
  const p99 = (id) =>
    versusDirect(id, (r, d) => r.p99Ms <= MCP_TARGETS.stdioP99Times * d.p99Ms + MCP_TARGETS.stdioP99PlusMs);
  const rate = (id) => by[id]?.throughput?.callsPerSecond;
  const stdioRate = (id) =>
    rate(id) !== undefined && rate('direct') !== undefined
      ? rate(id) >= MCP_TARGETS.stdioShareOfDirect * rate('direct')
      : null;
  const bridgeRates = bridges.map((b) => rate(b.id));
  const httpRate = (id) =>
    rate(id) !== undefined && bridgeRates.length === 2 && bridgeRates.every((r) => r !== undefined)
      ? bridgeRates.every((r) => rate(id) >= r)
      : null;
  return {
    serveStdioP50: p50('serve', MCP_TARGETS.stdioP50OverheadMs),
    wrapStdioP50: p50('wrap', MCP_TARGETS.stdioP50OverheadMs),
    serveStdioP50Stretch: p50('serve', MCP_TARGETS.stdioP50StretchMs),
    wrapStdioP50Stretch: p50('wrap', MCP_TARGETS.stdioP50StretchMs),
    serveStdioP99: p99('serve'),
    wrapStdioP99: p99('wrap'),
    serveHttpFasterThanBridges: fasterThanBridges('serve-http'),
    wrapHttpFasterThanBridges: fasterThanBridges('wrap-http'),
    serveStdioThroughput: stdioRate('serve'),
    wrapStdioThroughput: stdioRate('wrap'),
    serveHttpThroughput: httpRate('serve-http'),
    wrapHttpThroughput: httpRate('wrap-http'),
  };
}

/**
 * The floor under a governed call's latency on this disk: one awaited durable append (commit and
 * fsync). A call makes two in sequence: its decision before the tool runs, its completion before
 * the answer.
 */
async function durableAppendLatency(tmpRoot) {
  const path = join(tmpRoot, 'mcp-durable-append.lmdb');
  const log = new LmdbEventLog({ path });
  const samples = [];
  try {
    for (let i = 0; i < 120; i += 1) {
      const t0 = now();
      await log.append([
        {
          type: 'call.requested',
          data: { callId: `c${i}`, rootId: `c${i}`, tool: 'echo', params: { text: `m${i}` }, iface: 'mcp' },
        },
      ]);
      if (i >= 20) samples.push(now() - t0);
    }
  } finally {
    await log.close();
  }
  return { n: samples.length, p50Ms: round(percentile(samples, 50), 3), p99Ms: round(percentile(samples, 99), 3) };
}

/** Every call the serve routes answered is in the project's log, and its chain verifies. */
async function checkServeLog(path, failures) {
  const log = new LmdbEventLog({ path });
  try {
    const chain = await verifyChain(log.read());
    if (!chain.ok) failures.push(`mcp: the serve route's event log is broken: ${JSON.stringify(chain.firstBad)}`);
    return { ok: chain.ok, events: chain.verified };
  } finally {
    await log.close();
  }
}

function pick(object, keys) {
  return Object.fromEntries(keys.map((key) => [key, object[key]]));
}

/** Rows for the bench table. */
export function mcpRows(result) {
  if (!result) return [{ benchmark: 'mcp', value: 'failed', unit: '', notes: 'see failures' }];
  const rows = [];
  const met = (flag) => (flag === null ? 'not measured' : flag ? 'MET' : 'NOT MET');
  for (const r of result.routes) {
    if (r.p50Ms !== undefined) {
      const over = r.id === 'direct' ? 'baseline' : `+${r.overP50Ms} p50 / +${r.overP99Ms} p99 vs direct stdio`;
      const overHttp =
        r.overHttpP50Ms !== undefined && r.id !== 'direct-http'
          ? `; +${r.overHttpP50Ms} / +${r.overHttpP99Ms} vs direct HTTP`
          : '';
      rows.push({
        benchmark: `mcp ${r.name}: tools/call p50`,
        value: r.p50Ms,
        unit: 'ms',
        notes: `p99 ${r.p99Ms} ms, n=${r.n}; ${over}${overHttp}`,
      });
    }
    if (r.throughput) {
      rows.push({
        benchmark: `mcp ${r.name}: throughput c=${result.config.concurrency}`,
        value: r.throughput.callsPerSecond,
        unit: 'calls/s',
        notes: `${r.throughput.calls} calls in ${r.throughput.seconds} s${r.throughput.errors ? `; ${r.throughput.errors} ERRORS` : ''}`,
      });
    }
  }
  const t = result.targets;
  const T = MCP_TARGETS;
  rows.push({
    benchmark: `mcp target: stdio p50 overhead <= ${T.stdioP50OverheadMs} ms over direct`,
    value: result.routes.find((r) => r.id === 'serve')?.overP50Ms ?? 'n/a',
    unit: 'ms',
    notes: `serve ${met(t.serveStdioP50)}; wrap ${met(t.wrapStdioP50)} (governance + durable audit log on); stretch <= ${T.stdioP50StretchMs} ms: serve ${met(t.serveStdioP50Stretch)}, wrap ${met(t.wrapStdioP50Stretch)}`,
  });
  rows.push({
    benchmark: `mcp target: stdio p99 <= ${T.stdioP99Times}x direct p99 + ${T.stdioP99PlusMs} ms`,
    value: result.routes.find((r) => r.id === 'serve')?.p99Ms ?? 'n/a',
    unit: 'ms',
    notes: `serve ${met(t.serveStdioP99)}; wrap ${met(t.wrapStdioP99)}`,
  });
  rows.push({
    benchmark: 'mcp target: HTTP faster than both bridges',
    value: '',
    unit: '',
    notes: `at p50 and p99: serve --port ${met(t.serveHttpFasterThanBridges)}; wrap --port ${met(t.wrapHttpFasterThanBridges)}`,
  });
  rows.push({
    benchmark: `mcp target: c=${T.concurrency}: stdio >= ${T.stdioShareOfDirect} x direct stdio, HTTP >= both bridges`,
    value: '',
    unit: '',
    notes: `serve stdio ${met(t.serveStdioThroughput)}; wrap stdio ${met(t.wrapStdioThroughput)}; serve HTTP ${met(t.serveHttpThroughput)}; wrap HTTP ${met(t.wrapHttpThroughput)}`,
  });
  for (const p of result.pipeline) {
    const cpuTarget =
      p.label === 'current'
        ? `; target <= ${MCP_TARGETS.pipelineCpuUsPerCall} us: ${met(p.cpuUsPerCall <= MCP_TARGETS.pipelineCpuUsPerCall)}`
        : '';
    rows.push({
      benchmark: `mcp kernel pipeline in-process (${p.label} build), c=${result.config.concurrency}`,
      value: p.callsPerSecond,
      unit: 'calls/s',
      notes: `${p.cpuUsPerCall} us CPU per call${cpuTarget}; no MCP, no processes: a tool that answers at once, shadow rules, durable LMDB log`,
    });
  }
  const d = result.durableAppend;
  rows.push({
    benchmark: 'mcp durable LMDB append (1 event), p50',
    value: d.p50Ms,
    unit: 'ms',
    notes: `p99 ${d.p99Ms} ms, n=${d.n}; a governed call awaits 2 in sequence (decision, completion): its latency floor on this disk`,
  });
  for (const [label, chain] of [
    ['serve', result.serveLog],
    ['serve (durability: commit)', result.serveCommitLog],
  ])
    rows.push({
      benchmark: `mcp ${label} log after the run`,
      value: chain.events,
      unit: 'events',
      notes: chain.ok ? 'chain ok' : 'CHAIN BROKEN',
    });
  return rows;
}
