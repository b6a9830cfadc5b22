import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import { rebuildTimeline } from '../../src/events/timeline.js';
import type { Kernel } from '../../src/kernel/kernel.js';
import { recheckDecisions } from '../../src/evidence/shadow-recheck.js';
import { plugin as quickjs } from '@factorly/plugin-engine-quickjs';
import { plugin as code } from '@factorly/plugin-provider-code';
import { plugin as shadow } from '@factorly/plugin-shadow';
import type { Recorded } from '../../src/events/envelope.js';
import type { Params } from '../../src/events/catalog.js';
import { instantProvider } from '../helpers/instant.js';
import { startTestKernel } from '../helpers/kernel.js';
import { runCli, tempProject } from '../helpers/project.js';

const SESSION = `tools:
  ok: {type: instant, parameters: [{name: n, type: integer}]}
  limited: {type: instant, parameters: [{name: n, type: integer}], shadow: {rate_limit: 30/min}}
  denied: {type: instant, shadow: {deny: true}}
  same: {type: instant, parameters: [{name: q}]}
  factorly.code: {shadow: {max_calls: 5}}
`;

const SCRIPT = 'async function run(p) { const r = await factorly.call("ok", { n: p.n }); return r.output; }';

let kernel: Kernel | undefined;
afterEach(async () => kernel?.stop());

describe('logs replay --check and --until against a live session', () => {
  it(
    're-derives every decision of ~1,000 calls (rate limits, loops, denials, code runs) without a mismatch',
    { timeout: 240_000 },
    async () => {
      const started = await startTestKernel(SESSION, [instantProvider, shadow, quickjs, code]);
      kernel = started.kernel;
      const snapshots: { seq: number; calls: [string, string][] }[] = [];
      const live: [string, string][] = [];
      for (let i = 0; i < 1000; i += 1) {
        const kind = i % 10;
        const request: { tool: string; params: Params } =
          kind === 5
            ? { tool: 'limited', params: { n: i } }
            : kind === 6
              ? { tool: 'denied', params: {} }
              : kind === 7
                ? { tool: 'same', params: { q: 'again' } }
                : kind === 8
                  ? { tool: 'ok', params: { n: i % 3 } }
                  : kind === 9 && i % 50 === 9
                    ? { tool: 'factorly.code', params: { code: SCRIPT, params: { n: i } } }
                    : { tool: 'ok', params: { n: i } };
        const outcome = await kernel.pipeline.call({ ...request, iface: 'mcp', agentId: `agent-${i % 2}` });
        live.push([outcome.callId, outcome.status]);
        if (i === 249 || i === 499 || i === 749)
          snapshots.push({ seq: (await started.log.head()).seq, calls: [...live] });
      }
      const statuses = new Set(live.map(([, status]) => status));
      expect(statuses).toEqual(new Set(['success', 'blocked']));

      const report = await recheckDecisions(started.log, kernel.shadow.ruleList(), {
        current: (name) => kernel!.registry.get(name),
      });
      expect(report.mismatches).toEqual([]);
      expect(report.skipped).toEqual([]);
      expect(report.checked).toBeGreaterThan(1000);

      const events: Recorded[] = [];
      for await (const event of started.log.read()) events.push(event);
      const decisions = new Set(
        events.filter((e) => e.type === 'shadow.decided').map((e) => (e.data as { decision: string }).decision),
      );
      expect(decisions).toEqual(new Set(['allow', 'deny', 'rate_limited', 'warn', 'loop_blocked']));

      for (const snapshot of snapshots) {
        const timeline = await rebuildTimeline(started.log, { seq: snapshot.seq });
        const outer = timeline.calls
          .filter(({ entry }) => entry.parentId === undefined)
          .map(({ entry }) => [entry.callId, entry.status]);
        expect(outer).toEqual(snapshot.calls);
      }
    },
  );

  it(
    'after a config change: --check decides under the rules recorded then, --with-current-config lists what would change',
    { timeout: 90_000 },
    () => {
      const root = tempProject({
        '.factorly/factorly.yaml':
          'tools:\n  hi: {type: cli, command: echo, args: [hi], shadow: {rate_limit: 2/min}}\n',
      });
      for (let i = 0; i < 4; i += 1) runCli(['call', 'hi'], root);
      writeFileSync(
        join(root, '.factorly', 'factorly.yaml'),
        'tools:\n  hi: {type: cli, command: echo, args: [hi], shadow: {rate_limit: 10/min}}\n',
      );
      expect(runCli(['logs', 'replay', '--check'], root)).toMatchObject({
        status: 0,
        stdout: 'Re-derived the decisions of 4 calls: 0 mismatch(es)\n',
      });
      const current = runCli(['logs', 'replay', '--check', '--with-current-config'], root);
      expect(current.status).toBe(1);
      const lines = current.stdout.trim().split('\n');
      expect(lines[0]).toBe('Under the current config, 2 of 4 calls would be decided differently');
      expect(lines.slice(1)).toEqual([
        expect.stringMatching(
          /^ {2}seq \d+ hi \S+: recorded \[rate-limit:rate_limited\], now \[rate-limit:allow, loop-detection:\w+\]$/,
        ),
        expect.stringMatching(
          /^ {2}seq \d+ hi \S+: recorded \[rate-limit:rate_limited\], now \[rate-limit:allow, loop-detection:\w+\]$/,
        ),
      ]);
      const json = JSON.parse(runCli(['logs', 'replay', '--check', '--json'], root).stdout);
      expect(json).toMatchObject({ under: 'recorded', checked: 4, mismatches: [], unrecorded: 0 });
    },
  );

  it('factorly logs replay --check: zero mismatches on an honest log, a mismatch on a forged decision', () => {
    const root = tempProject({
      '.factorly/factorly.yaml': 'tools:\n  hi: {type: cli, command: echo, args: [hi], shadow: {rate_limit: 2/min}}\n',
    });
    for (let i = 0; i < 4; i += 1) runCli(['call', 'hi'], root);
    expect(runCli(['logs', 'replay', '--check'], root)).toMatchObject({
      status: 0,
      stdout: 'Re-derived the decisions of 4 calls: 0 mismatch(es)\n',
    });
    const env = open({ path: join(root, '.factorly', 'events.lmdb'), compression: false });
    const db = env.openDB<Buffer, number>({ name: 'events', keyEncoding: 'uint32', encoding: 'binary' });
    const forged = [...db.getRange({})].find(({ value }) => value.toString().includes('"decision":"rate_limited"'))!;
    db.putSync(
      forged.key,
      Buffer.from(forged.value.toString().replace('"decision":"rate_limited"', '"decision":"allow"')),
    );
    void env.close();
    const check = runCli(['logs', 'replay', '--check'], root);
    expect(check.status).toBe(1);
    expect(check.stdout).toMatch(
      /^Re-derived the decisions of 4 calls: 1 mismatch\(es\)\n {2}seq \d+ hi .+: recorded \[.*rate-limit:allow.*\], re-derived \[.*rate-limit:rate_limited.*\]; blocked by rate_limited though every decision let it run\n$/,
    );
  });
});
