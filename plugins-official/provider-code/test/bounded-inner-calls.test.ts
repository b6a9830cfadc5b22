import fc from 'fast-check';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Recorded } from 'factorly/events';
import { startTestKernel, type TestKernel } from 'factorly/testing';

// Issue 31, item 5: every host-side step of a call is bounded. A script hands its inner calls
// values as large as the bridge lets through (8 Mi characters of JSON): objects of 10k–100k keys,
// deep nesting, huge sparse arrays, long strings of characters that JSON escapes. Whatever the
// shape, the host stays responsive, each inner call ends cleanly (a result, or a refusal that names
// the problem), and the script's own deadline ends the run as a timeout: exit 124.

const SECRET = 'bounded-secret-4242';
process.env.BOUNDED_TEST_SECRET = SECRET;

/**
 * Builds the value inside the sandbox and hands it to two inner calls. Then it waits, polling, for
 * the test's probe (started while the host works on the first of those calls) to have been answered,
 * and spins until its deadline.
 */
const SCRIPT = `async function run(p) {
  var value;
  if (p.kind === 'wide') { value = {}; for (var i = 0; i < p.size; i++) value['key' + i] = i % 7 === 0 ? 'v' + i : i; }
  else if (p.kind === 'deep') { value = 0; for (var d = 0; d < p.size; d++) value = d % 2 ? [value] : { n: value }; }
  else if (p.kind === 'sparse') { value = []; value[p.size - 1] = 'end'; }
  else { value = p.char.repeat(p.size); }
  var wide = value !== null && typeof value === 'object' && !Array.isArray(value);
  var seen = [];
  for (var target of [wide ? ['sink', value] : ['sink', { data: value }], ['sink.json', { data: value }]]) {
    try { var r = await factorly.call(target[0], target[1]); seen.push(r.exitCode); }
    catch (e) { seen.push(String(e).slice(0, 200)); }
  }
  console.log(JSON.stringify(seen));
  try { while ((await factorly.call('probe.answered', { path: p.flag })).exitCode !== 0) {} } catch (e) {}
  for (;;) {}
}`;

const YAML = (engine: string) => `tools:
  sink:
    type: cli
    description: takes no params; its config holds a secret, so the tree scrubs
    command: "true"
    env: {TOKEN: "{{env:BOUNDED_TEST_SECRET}}"}
  sink.json:
    type: cli
    description: echoes one JSON param back
    command: cat
    stdin: "{{data}}"
    env: {TOKEN: "{{env:BOUNDED_TEST_SECRET}}"}
    parameters: [{name: data, type: json, required: true}]
  probe:
    type: cli
    command: touch
    args: ["{{path}}"]
    parameters: [{name: path, type: text, required: true}]
  probe.answered:
    type: cli
    command: test
    args: ["-f", "{{path}}"]
    parameters: [{name: path, type: text, required: true}]
  flood:
    type: code
    engine: ${engine}
    timeout: 5s
    memory_mb: 256
    shadow: {max_calls: 1000}
    parameters:
      [{name: kind, type: text}, {name: size, type: integer}, {name: char, type: text, default: x}, {name: flag, type: text}]
    code: ${JSON.stringify(SCRIPT)}
`;

/** Values as large as the bridge lets through, in each shape that once made the host work super-linearly. */
const shapes = fc.oneof(
  fc.record({ kind: fc.constant('wide'), size: fc.integer({ min: 10_000, max: 100_000 }) }),
  // Deeper, QuickJS's own JSON.stringify overflows its process's stack (about 5,000 levels): the engine
  // fails the run (exit 2) before the host sees the call. The host's side is tested to 100,000 levels
  // in test/security/bounded-log.test.ts.
  fc.record({ kind: fc.constant('deep'), size: fc.integer({ min: 200, max: 2_500 }) }),
  fc.record({ kind: fc.constant('sparse'), size: fc.integer({ min: 100_000, max: 1_500_000 }) }),
  fc.record({
    kind: fc.constant('long'),
    size: fc.integer({ min: 1_000_000, max: 3_000_000 }),
    char: fc.constantFrom('\\', '"', 'é', 'x'),
  }),
);

const MAX_PARAM_BYTES = 64 * 1024;

describe.each(['quickjs', 'ses'])('inner calls with huge params on %s', (engine) => {
  let test: TestKernel;
  beforeAll(async () => {
    test = await startTestKernel(YAML(engine), [], {
      official: ['provider-cli', 'vault', 'shadow', 'engine-quickjs', 'engine-ses', 'provider-code'],
      log: 'project',
    });
  });
  afterAll(() => test?.stop());

  it('end the run as a timeout (exit 124), each inner call cleanly, while the host answers others', async () => {
    await fc.assert(
      fc.asyncProperty(shapes, async (shape) => {
        const { run, probe } = await floodWithProbe(test, shape);
        expect(run).toMatchObject({ status: 'timeout', exitCode: 124 });
        expect(probe).toMatchObject({ status: 'success' });
        const tree = treeOf(await test.events(), run.callId);
        // The script saw the probe answered: the host answered it while the run was going on.
        const polls = tree.filter((e) => e.type === 'call.requested' && e.data.tool === 'probe.answered');
        const ends = innerEndings(tree, run.callId);
        expect(polls.some((poll) => ends.some((end) => end.callId === callIdOf(poll) && end.exitCode === 0))).toBe(
          true,
        );
        for (const event of tree) expect(JSON.stringify(event)).not.toContain(SECRET);
        for (const requested of tree.filter((e) => e.type === 'call.requested'))
          expect(Buffer.byteLength(JSON.stringify(requested.data.params))).toBeLessThanOrEqual(MAX_PARAM_BYTES);
        for (const inner of ends) {
          expect(['success', 'blocked', 'cancelled']).toContain(inner.status);
          expect(inner.error ?? '').not.toMatch(/RangeError|call stack|Invalid string length|internal/i);
        }
      }),
      { numRuns: 3, endOnFailure: true },
    );
  }, 90_000);
});

/** Runs the flood and, once its first inner call is on record, a probe: an unrelated call from outside. */
async function floodWithProbe(test: TestKernel, shape: Record<string, unknown>) {
  const flag = join(test.root, `probe-${++probes}`);
  let probe: Promise<unknown> | undefined;
  const off = test.kernel.bus.on('call.requested', (event) => {
    if (event.data.parentId) probe ??= test.call('probe', { path: flag });
  });
  try {
    const run = await test.call('flood', { ...shape, flag } as never);
    return { run, probe: await probe };
  } finally {
    off();
  }
}

let probes = 0;

/** Every event of the calls of one tree. */
function treeOf(events: Recorded[], rootId: string): Recorded[] {
  const calls = new Set(
    events.filter((e) => e.type === 'call.requested' && e.data.rootId === rootId).map((e) => callIdOf(e)),
  );
  return events.filter((e) => calls.has(callIdOf(e)));
}

function callIdOf(event: Recorded): string | undefined {
  return (event.data as { callId?: string }).callId;
}

/** The call.completed of every inner call of the run. */
function innerEndings(tree: Recorded[], rootId: string) {
  const inner = new Set(
    tree.filter((e) => e.type === 'call.requested' && callIdOf(e) !== rootId).map((e) => callIdOf(e)),
  );
  return tree
    .filter((e): e is Recorded<'call.completed'> => e.type === 'call.completed' && inner.has(e.data.callId))
    .map((e) => e.data);
}
