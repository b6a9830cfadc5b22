// Builds a project whose event log holds `events` events spread over the last `spanMs`, written as
// factorly writes them: call triples (requested, the loop rule's decision with its facts, completed;
// one call in 20,000 left running) through an LmdbEventLog with the audit view's and the shadow rules'
// projections registered, so the log carries the snapshots and indexes a real one would. Its config has the `greet` cli tool.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const GREET_YAML =
  'tools:\n  greet:\n    type: cli\n    command: echo\n    args: ["Hello, {{name}}!"]\n    parameters: [{name: name, default: world}]\n';
const BATCH = 1_000;

const load = (repo, path) => import(pathToFileURL(join(repo, path)).href);

/** A factorly project at `dir` with a log of about `events` events over the last `spanMs`; resolves with its log path. */
export async function buildHistoryProject({ repo, dir, events, spanMs, say = () => {} }) {
  const { LmdbEventLog } = await load(repo, 'dist/src/events/lmdb-log.js');
  const { registerAuditViews } = await load(repo, 'dist/src/events/audit-views.js');
  const { loopProjection } = await load(repo, 'plugins-official/shadow/dist/src/loop-rule.js');
  const { bucketsProjection } = await load(repo, 'plugins-official/shadow/dist/src/rate-limit-rule.js');
  mkdirSync(join(dir, '.factorly'), { recursive: true });
  writeFileSync(join(dir, '.factorly', 'factorly.yaml'), GREET_YAML);
  const path = join(dir, '.factorly', 'events.lmdb');
  const calls = Math.floor(events / 3);
  const step = spanMs / calls;
  let clock = Date.now() - spanMs;
  // The bench builds fast; a real writer acknowledges on disk (durability fsync).
  const writer = new LmdbEventLog({ path, durability: 'commit', clock: () => new Date(clock) });
  registerAuditViews(writer);
  writer.project(loopProjection);
  writer.project(bucketsProjection);
  const started = performance.now();
  for (let first = 0; first < calls; first += BATCH) {
    const batch = [];
    for (let i = first; i < Math.min(first + BATCH, calls); i += 1) batch.push(...(openCall(i) ?? callTriple(i)));
    clock += step * BATCH;
    await writer.append(batch);
    if (first % 100_000 === 0 && first > 0) say(`    ${(first * 3).toLocaleString('en-US')} events …`);
  }
  await writer.close();
  // The calls' events, and the records of the snapshots' digests the writer appended with them.
  const reader = new LmdbEventLog({ path, readOnly: true });
  const { seq: head } = await reader.head();
  await reader.close();
  return {
    path,
    events: head,
    buildEventsPerSecond: Math.round((calls * 3) / ((performance.now() - started) / 1000)),
  };
}

/** One call in 20,000 never ends: its writer (a process still running) recorded only its request. */
const OPEN_EVERY = 20_000;

/** Call `i`'s request alone when it is one of those, so the history's running calls are not an empty view. */
function openCall(i) {
  if (i % OPEN_EVERY !== OPEN_EVERY / 2) return undefined;
  const [requested] = callTriple(i);
  return [{ ...requested, data: { ...requested.data, writer: 'bench-running-writer' } }];
}

/** The three events of call `i` as factorly records them (shared with the NATS node bench). */
export function callTriple(i) {
  const callId = `call-${i}`;
  const agent = `agent-${i % 7}`;
  const tool = i % 1000 === 999 ? 'rare' : `tool.${i % 50}`;
  return [
    {
      type: 'call.requested',
      data: {
        callId,
        rootId: callId,
        tool,
        params: { n: i, q: 'some text' },
        iface: i % 3 ? 'mcp' : 'cli',
        agentId: agent,
      },
    },
    {
      type: 'shadow.decided',
      data: {
        callId,
        rule: 'loop-detection',
        plugin: 'shadow',
        decision: 'allow',
        reason: 'call 1 of its kind within 5m',
        facts: { fingerprint: `fp-${i}`, agent, window: 300_000 },
      },
    },
    {
      type: 'call.completed',
      data: {
        callId,
        status: i % 11 ? 'success' : 'error',
        exitCode: i % 11 ? 0 : 1,
        output: { text: 'ok', bytes: 2, sha256: 'x', truncated: false },
        durationMs: i % 100,
      },
    },
  ];
}
