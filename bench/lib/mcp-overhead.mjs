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
import { callBodies, httpLoad, stdioLoad } from './mcp-load.mjs';
import { connectClient, defineRoutes, startHttp, stopChild } from './mcp-routes.mjs';
import { now, percentile, round } from './stats.mjs';

export const MCP_TARGETS = { stdioP50OverheadMs: 0.3, callsPerSecond: 5_000, concurrency: 64 };

/**
 * @param {{ repo: string, tmpRoot: string, calls: number, rounds: number, warmup: number,
 *   loadSeconds: number, concurrency: number, httpServe?: { args: string[], portFrom: RegExp },
 *   log?: (line: string) => void }} opts
 */
export async function runMcpOverheadBench(opts) {
  const say = opts.log ?? (() => {});
  const failures = [];
  const routes = await defineRoutes({ repo: opts.repo, tmpRoot: opts.tmpRoot, httpServe: opts.httpServe });
  const durableAppend = await durableAppendLatency(opts.tmpRoot);
  say(`  durable LMDB append (1 event, awaited): p50 ${durableAppend.p50Ms} ms, p99 ${durableAppend.p99Ms} ms`);
  const latency = await measureLatency(routes, opts, say, failures);
  const throughput = await measureThroughput(routes, opts, say, failures);
  const chain = await checkServeLog(join(opts.tmpRoot, 'mcp-serve', '.factorly', 'events.lmdb'), failures);
  const results = routes.map((route) => ({
    id: route.id,
    name: route.name,
    transport: route.transport,
    ...latency.get(route.id),
    throughput: throughput.get(route.id) ?? null,
  }));
  withOverheads(results);
  const config = pick(opts, ['calls', 'rounds', 'warmup', 'latencySeconds', 'loadSeconds', 'concurrency']);
  return { result: { config, routes: results, targets: targetsOf(results), durableAppend, serveLog: chain }, failures };
}

/** Opens every route with the SDK client, then times `calls` sequential calls each, in rounds. */
async function measureLatency(routes, opts, say, failures) {
  const open = [];
  const samples = new Map();
  try {
    for (const route of routes) {
      try {
        const server = route.transport === 'http' ? await startHttp(route) : undefined;
        const client = await connectClient(route, server?.url);
        const { tools } = await client.listTools();
        if (!tools.some((tool) => tool.name === 'echo')) throw new Error(`tools/list has no "echo" (got ${tools.map((t) => t.name).join(', ')})`);
        open.push({ route, client, server });
        samples.set(route.id, []);
      } catch (error) {
        failures.push(`mcp ${route.id}: could not start: ${error?.message ?? error}`);
      }
    }
    say(`  latency: ${open.length} routes, ${opts.warmup} warm-up + up to ${opts.calls} calls each in ${opts.rounds} interleaved rounds (${opts.latencySeconds} s in all) ...`);
    let id = 0;
    const call = async ({ route, client }, record) => {
      id += 1;
      const text = `m${id}`; // distinct params: identical calls are what loop detection blocks
      const t0 = now();
      const result = await client.callTool({ name: 'echo', arguments: { text } });
      const ms = now() - t0;
      if (result.isError || result.content?.[0]?.text !== text) throw new Error(`${route.id}: echo answered ${JSON.stringify(result).slice(0, 300)}`);
      if (record) samples.get(route.id).push(ms);
    };
    for (const entry of open) for (let i = 0; i < opts.warmup; i += 1) await call(entry, false);
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
  } finally {
    for (const { client, server } of open) {
      await client.close().catch(() => undefined);
      await stopChild(server?.child);
    }
  }
  const stats = new Map();
  for (const [routeId, values] of samples) {
    if (values.length === 0) continue;
    stats.set(routeId, { n: values.length, p50Ms: round(percentile(values, 50), 4), p99Ms: round(percentile(values, 99), 4), meanMs: round(values.reduce((a, b) => a + b, 0) / values.length, 4) });
  }
  return stats;
}

/** Each route on its own, fresh process, driven at `concurrency` for `loadSeconds`. */
async function measureThroughput(routes, opts, say, failures) {
  const out = new Map();
  let nextId = 1_000_000;
  const slice = (count) => {
    const bodies = callBodies(count, nextId);
    nextId += count;
    return bodies;
  };
  say(`  throughput: concurrency ${opts.concurrency}, ${opts.loadSeconds} s per route ...`);
  for (const route of routes) {
    // Enough bodies that the clock runs out first, even on a fast machine.
    const load = {
      warmup: { bodies: slice(Math.max(opts.concurrency * 4, 500)), seconds: Math.min(1, opts.loadSeconds / 2) },
      measured: { bodies: slice(Math.ceil(opts.loadSeconds * 40_000)), seconds: opts.loadSeconds },
      concurrency: opts.concurrency,
    };
    let server;
    try {
      if (route.transport === 'stdio') {
        out.set(route.id, summarizeLoad(await stdioLoad(route, load)));
      } else {
        server = await startHttp(route);
        out.set(route.id, summarizeLoad(await httpLoad(server.url, load)));
      }
      const r = out.get(route.id);
      say(`    ${route.id}: ${Math.round(r.callsPerSecond)} calls/s${r.errors ? `, ${r.errors} errors` : ''}`);
      if (r.errors) failures.push(`mcp ${route.id}: ${r.errors} of ${r.calls} calls under load were not echoed; first: ${r.firstError}`);
    } catch (error) {
      failures.push(`mcp ${route.id}: load failed: ${error?.message ?? error}`);
    } finally {
      await stopChild(server?.child);
    }
  }
  return out;
}

function summarizeLoad(r) {
  return { calls: r.calls, seconds: round(r.seconds, 3), callsPerSecond: round(r.callsPerSecond, 0), errors: r.errors, ...(r.firstError ? { firstError: r.firstError } : {}) };
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

/** The issue's targets, each `true`/`false`, or `null` when the route was not measured. */
function targetsOf(results) {
  const by = Object.fromEntries(results.map((r) => [r.id, r]));
  const bridges = results.filter((r) => ['mcp-proxy', 'supergateway'].includes(r.id));
  const httpRoute = by['serve-http'];
  const measured = (r) => r?.p50Ms !== undefined;
  const fasterThanBridges = measured(httpRoute) && bridges.every(measured)
    ? bridges.every((b) => httpRoute.p50Ms < b.p50Ms && httpRoute.p99Ms < b.p99Ms)
    : null;
  const rate = (id) => (by[id]?.throughput ? by[id].throughput.callsPerSecond >= MCP_TARGETS.callsPerSecond : null);
  return {
    serveStdioP50: measured(by.serve) && measured(by.direct) ? by.serve.overP50Ms <= MCP_TARGETS.stdioP50OverheadMs : null,
    wrapStdioP50: measured(by.wrap) && measured(by.direct) ? by.wrap.overP50Ms <= MCP_TARGETS.stdioP50OverheadMs : null,
    serveHttpFasterThanBridges: fasterThanBridges,
    serveStdioThroughput: rate('serve'),
    wrapStdioThroughput: rate('wrap'),
    serveHttpThroughput: rate('serve-http'),
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
      await log.append([{ type: 'call.requested', data: { callId: `c${i}`, rootId: `c${i}`, tool: 'echo', params: { text: `m${i}` }, iface: 'mcp' } }]);
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
      const overHttp = r.overHttpP50Ms !== undefined && r.id !== 'direct-http' ? `; +${r.overHttpP50Ms} / +${r.overHttpP99Ms} vs direct HTTP` : '';
      rows.push({ benchmark: `mcp ${r.name}: tools/call p50`, value: r.p50Ms, unit: 'ms', notes: `p99 ${r.p99Ms} ms, n=${r.n}; ${over}${overHttp}` });
    }
    if (r.throughput) {
      rows.push({ benchmark: `mcp ${r.name}: throughput c=${result.config.concurrency}`, value: r.throughput.callsPerSecond, unit: 'calls/s', notes: `${r.throughput.calls} calls in ${r.throughput.seconds} s${r.throughput.errors ? `; ${r.throughput.errors} ERRORS` : ''}` });
    }
  }
  const t = result.targets;
  rows.push({ benchmark: 'mcp target: stdio p50 overhead <= 0.3 ms', value: result.routes.find((r) => r.id === 'serve')?.overP50Ms ?? 'n/a', unit: 'ms', notes: `serve ${met(t.serveStdioP50)}; wrap ${met(t.wrapStdioP50)} (governance + durable audit log on)` });
  rows.push({ benchmark: 'mcp target: HTTP faster than both bridges', value: '', unit: '', notes: `serve --port at p50 and p99: ${met(t.serveHttpFasterThanBridges)}` });
  rows.push({ benchmark: `mcp target: >= ${MCP_TARGETS.callsPerSecond} calls/s at c=${MCP_TARGETS.concurrency}`, value: '', unit: '', notes: `serve stdio ${met(t.serveStdioThroughput)}; wrap stdio ${met(t.wrapStdioThroughput)}; serve HTTP ${met(t.serveHttpThroughput)}` });
  const d = result.durableAppend;
  rows.push({ benchmark: 'mcp durable LMDB append (1 event), p50', value: d.p50Ms, unit: 'ms', notes: `p99 ${d.p99Ms} ms, n=${d.n}; a governed call awaits 2 in sequence (decision, completion): its latency floor on this disk` });
  rows.push({ benchmark: 'mcp serve log after the run', value: result.serveLog.events, unit: 'events', notes: result.serveLog.ok ? 'chain ok' : 'CHAIN BROKEN' });
  return rows;
}
