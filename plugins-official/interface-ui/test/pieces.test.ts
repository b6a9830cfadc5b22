import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentDirectory, AuditEntry, CallNode, DashboardFigures, HostServices, ToolDefinition } from 'factorly';
import { evidenceBadges } from '../src/evidence-view.js';
import { EvidenceWatch } from '../src/evidence-watch.js';
import { agentLabel, agentName } from '../src/agents.js';
import { niceMax } from '../src/charts/scale.js';
import { timeChart } from '../src/charts/time-chart.js';
import { UiPersonChannel } from '../src/person-channel.js';
import { html } from '../src/html.js';
import { historyRow } from '../src/history-view.js';
import { loginState } from '../src/routes/auth.js';
import { toolYaml } from '../src/tool-yaml.js';
import { lockPath, removeLock, writeLock } from '../src/ui-lock.js';
import { layoutWaterfall } from '../src/waterfall.js';

const dirs: string[] = [];
function dir(): string {
  const made = mkdtempSync(join(tmpdir(), 'factorly-ui-unit-'));
  dirs.push(made);
  return made;
}
afterEach(() => {
  for (const made of dirs.splice(0)) rmSync(made, { recursive: true, force: true });
});

describe('html', () => {
  it('escapes every interpolated value, so text from the log never becomes markup', () => {
    const row = historyRow(
      {
        callId: 'c1',
        rootId: 'c1',
        tool: '<img src=x onerror=alert(1)>',
        iface: 'cli',
        agentId: '"><script>',
        params: {},
        requestedAt: '2026-01-02T03:04:05.000Z',
        status: 'success',
        durationMs: 12,
        hash: 'h',
        seq: 1,
      },
      new Map(),
    ).text;
    expect(row).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(row).toContain('&quot;&gt;&lt;script&gt;');
    expect(row).not.toContain('<img');
    expect(html`<p title="${`a'b"c`}">${['<b>', html`<i>ok</i>`]}${undefined}${false}</p>`.text).toBe(
      '<p title="a&#39;b&quot;c">&lt;b&gt;<i>ok</i></p>',
    );
  });

  it('shows a call’s highlighted params in its row, escaped, and nothing for a call without', () => {
    const entry: AuditEntry = {
      callId: 'c1',
      rootId: 'c1',
      tool: 'search',
      iface: 'cli',
      params: { q: '<b>x</b>', page: 2 },
      highlightParams: { q: '<b>x</b>', page: 2 },
      requestedAt: '2026-01-02T03:04:05.000Z',
      hash: 'h',
      seq: 1,
    };
    const row = historyRow(entry, new Map()).text;
    expect(row).toContain(
      '<span class="highlights" title="highlighted params"><code>q=&lt;b&gt;x&lt;/b&gt;</code><code>page=2</code></span>',
    );
    expect(historyRow({ ...entry, highlightParams: undefined }, new Map()).text).not.toContain('highlights');
  });
});

describe('the ui confirm channel', () => {
  const noLog = () => {
    throw new Error('the log is only opened when a request is asked');
  };

  it('accepts only while a live process holds the project lock', () => {
    const state = dir();
    const channel = new UiPersonChannel(state, noLog);
    expect(channel.accepts()).toBe(false);
    writeLock(state, { pid: process.pid, url: 'http://127.0.0.1:1/' });
    expect(channel.accepts()).toBe(true);
    removeLock(state);
    expect(channel.accepts()).toBe(false);
    // A UI that died without cleaning up: its pid no longer runs.
    writeFileSync(lockPath(state), JSON.stringify({ pid: 2 ** 22 + 7, url: 'x' }));
    expect(channel.accepts()).toBe(false);
  });

  it('says why it cannot ask, and tells a piped factorly call where it waits (not one with a terminal)', async () => {
    const state = dir();
    const said: string[] = [];
    const notices = { write: (text: string) => said.push(text) } as unknown as NodeJS.WritableStream;
    const { MemoryEventLog } = await import('factorly/events');
    const log = new MemoryEventLog();
    let terminal = false;
    const channel = new UiPersonChannel(
      state,
      () => log,
      notices,
      () => terminal,
    );
    expect(channel.whyNot()).toBe(
      'no factorly ui is running for this project (start `factorly ui` to approve calls on its Approvals page)',
    );
    writeLock(state, { pid: process.pid, url: 'http://127.0.0.1:4711/' });
    expect(channel.whyNot()).toBeUndefined();
    const request = {
      kind: 'confirm' as const,
      callId: 'c1',
      tool: 'deploy',
      params: {},
      fingerprint: 'f',
      reason: 'tool "deploy" requires confirmation',
      expiresAt: Date.parse('2026-11-30T10:01:00.000Z'),
    };
    for (const iface of ['cli', 'mcp'] as const) {
      const stop = new AbortController();
      const asked = channel.ask({ ...request, iface }, stop.signal);
      stop.abort();
      await asked.catch(() => undefined);
    }
    terminal = true;
    const stop = new AbortController();
    const asked = channel.ask({ ...request, iface: 'cli' }, stop.signal);
    stop.abort();
    await asked.catch(() => undefined);
    expect(said).toEqual([
      '⏳ Tool "deploy" waits for approval: approve or deny it at http://127.0.0.1:4711/approvals (the factorly ui of this project); declined at 10:01:00 UTC if nobody answers.\n',
    ]);
    removeLock(state);
  });

  it('leaves another process’s lock in place', () => {
    const state = dir();
    writeLock(state, { pid: process.pid + 1, url: 'x' });
    removeLock(state);
    expect(existsSync(lockPath(state))).toBe(true);
  });
});

describe('toolYaml', () => {
  it('cuts the tool’s entry out of its file, and has nothing for built-ins', () => {
    const base = dir();
    writeFileSync(join(base, 'f.yaml'), 'tools:\n  a:\n    type: cli\n\n    command: echo\n  b:\n    type: cli\n');
    const tool = (line: number, file = 'f.yaml') => ({ name: 'a', source: { file, line } }) as ToolDefinition;
    expect(toolYaml(tool(2), base)).toBe('  a:\n    type: cli\n\n    command: echo');
    expect(toolYaml(tool(0, 'built-in'), base)).toBeUndefined();
    expect(toolYaml(tool(2, 'missing.yaml'), base)).toBeUndefined();
  });
});

const entry = (callId: string, at: string, durationMs?: number, extra: Partial<AuditEntry> = {}): AuditEntry => ({
  callId,
  rootId: 'root',
  tool: callId,
  iface: 'cli',
  params: {},
  requestedAt: at,
  durationMs,
  status: durationMs === undefined ? undefined : 'success',
  hash: 'h',
  seq: 1,
  ...extra,
});
const node = (e: AuditEntry, children: CallNode[] = [], decisions: CallNode['decisions'] = []): CallNode => ({
  entry: e,
  decisions,
  children,
});

describe('the waterfall layout', () => {
  it('places each call by its start and sizes it by its duration, depth first, siblings by start', () => {
    const late = node(entry('late', '2026-01-01T00:00:00.600Z', 200));
    const blocked = node(
      entry('blocked', '2026-01-01T00:00:00.500Z', 0, { status: 'blocked' }),
      [],
      [{ rule: 'deny', decision: 'deny', reason: 'no', at: '2026-01-01T00:00:00.500Z' }],
    );
    const inner = node(entry('inner', '2026-01-01T00:00:00.100Z', 100), [
      node(entry('deeper', '2026-01-01T00:00:00.150Z', 10)),
    ]);
    const tree = { root: node(entry('root', '2026-01-01T00:00:00.000Z', 1000), [late, blocked, inner]), sources: {} };
    const { rows, spanMs } = layoutWaterfall(tree, 0);
    expect(spanMs).toBe(1000);
    expect(rows.map((r) => [r.node.entry.callId, r.depth, r.left, r.width])).toEqual([
      ['root', 0, 0, 100],
      ['inner', 1, 10, 10],
      ['deeper', 2, 15, 1],
      ['blocked', 1, 50, 0.4],
      ['late', 1, 60, 20],
    ]);
    expect(rows[3].markers).toEqual([{ at: 50, decision: 'deny', rule: 'deny', reason: 'no' }]);
    // The critical path follows the inner call that ended last at each level; folding counts what is below.
    expect(rows.filter((r) => r.critical).map((r) => r.node.entry.callId)).toEqual(['root', 'late']);
    expect(rows.map((r) => r.descendants)).toEqual([4, 1, 0, 0, 0]);
  });

  it('has no critical path for a single call', () => {
    const { rows } = layoutWaterfall({ root: node(entry('alone', '2026-01-01T00:00:00.000Z', 5)), sources: {} }, 0);
    expect(rows.map((r) => r.critical)).toEqual([false]);
  });

  it('extends a call still running to now', () => {
    const tree = {
      root: node(entry('root', '2026-01-01T00:00:00.000Z'), [node(entry('done', '2026-01-01T00:00:00.000Z', 250))]),
      sources: {},
    };
    const { rows, spanMs } = layoutWaterfall(tree, Date.parse('2026-01-01T00:00:01.000Z'));
    expect(spanMs).toBe(1000);
    expect(rows.map((r) => [r.running, r.width])).toEqual([
      [true, 100],
      [false, 25],
    ]);
  });
});

describe('charts', () => {
  it('stacks statuses per step, colours unknown ones neutrally, and escapes what it labels', () => {
    const figures = {
      range: '1h',
      from: 0,
      to: 120_000,
      stepMs: 60_000,
      calls: 3,
      statuses: [],
      tools: [],
      blocked: [],
      agents: [],
      agentCount: 0,
      durations: [],
      timeline: [
        { start: 0, statuses: { success: 2, 'from-a-newer-writer': 1 } },
        { start: 60_000, statuses: {} },
      ],
    } as DashboardFigures;
    const svg = timeChart(figures, (ms) => `<${ms}>`).text;
    expect(svg).toContain('viewBox="0 0 2 100"');
    expect(svg).toContain(
      '<rect class="s-success" x="0.11" y="50" width="0.78" height="50"><title>&lt;0&gt; · success: 2</title></rect>',
    );
    expect(svg).toContain(
      '<rect class="s-other" x="0.11" y="25" width="0.78" height="25"><title>&lt;0&gt; · from-a-newer-writer: 1</title></rect>',
    );
    expect(svg).not.toContain('<0>');
    expect([1, 2, 3, 9, 10, 11, 45, 140].map(niceMax)).toEqual([2, 2, 4, 10, 10, 20, 60, 200]);
  });

  it('names agents by their client, with the short session id beside it, linked to their page', () => {
    const claude = '3f2a1b0c-aaaa-4bbb-8ccc-000000000001';
    const bare = '9e8d7c6b-bbbb-4bbb-8ccc-000000000002';
    const agents: AgentDirectory = new Map([
      [
        claude,
        {
          agentId: claude,
          sessionId: claude,
          iface: 'mcp',
          client: { name: 'claude-code', version: '1.0.42' },
          openedAt: '',
        },
      ],
      [bare, { agentId: bare, sessionId: bare, iface: 'mcp', openedAt: '' }],
      // An id that names nobody's session (recorded without one): shown as it is.
      ['ci-bot', { agentId: 'ci-bot', sessionId: 's3', iface: 'mcp', openedAt: '' }],
    ]);
    expect(agentLabel(agentName(claude, agents)).text).toBe(
      `<a class="agent" href="/agents/${claude}" title="${claude}"><span class="agent-name">claude-code 1.0.42</span> <code class="sid">3f2a1b0c</code></a>`,
    );
    expect(agentName(bare, agents)).toEqual({ name: 'mcp session', short: '9e8d7c6b', id: bare });
    expect(agentName('ci-bot', agents)).toEqual({ name: 'ci-bot', id: 'ci-bot' });
    expect(agentName('0a0b0c0d-0000-4000-8000-000000000000', agents)).toMatchObject({
      name: 'agent',
      short: '0a0b0c0d',
    });
    expect(agentName('deploy-token', agents)).toEqual({ name: 'deploy-token', id: 'deploy-token' });
    expect(agentName('iface:cli', agents)).toEqual({ name: 'cli', id: 'iface:cli' });
    expect(agentName(undefined, agents, 'ui')).toEqual({ name: 'ui', id: 'iface:ui' });
    expect(agentLabel(agentName('iface:cli', agents)).text).toBe(
      '<a class="agent" href="/agents/iface%3Acli" title="iface:cli"><span class="agent-name">cli</span></a>',
    );
  });

  it('names an agent its token named by that name, with what its client called itself beside it', () => {
    const agents: AgentDirectory = new Map([
      [
        'cursor',
        {
          agentId: 'cursor',
          sessionId: '5a6b7c8d-cccc',
          iface: 'mcp',
          openedAt: '',
          client: { name: 'Cursor', version: '1.4.2' },
          principal: { kind: 'token', agentId: 'cursor' },
        },
      ],
    ]);
    expect(agentName('cursor', agents)).toEqual({ name: 'cursor', id: 'cursor', label: 'Cursor 1.4.2' });
    expect(agentLabel(agentName('cursor', agents)).text).toBe(
      '<a class="agent" href="/agents/cursor" title="cursor"><span class="agent-name">cursor</span> <span class="muted">Cursor 1.4.2</span></a>',
    );
  });
});

describe('the evidence badge', () => {
  it('says the chain is unreadable when the verification fails, and verifying again recovers', async () => {
    const { MemoryEventLog } = await import('factorly/events');
    let fail = true;
    const report = {
      ok: true,
      status: 'verified',
      verified: 0,
      events: 0,
      findings: [],
      tree: { size: 0, rootHash: '' },
      checkpoints: [],
    };
    const services = {
      verify: async () => {
        if (fail) throw new Error('the event log is damaged: page 3 is reached twice');
        return report;
      },
      evidence: async () => ({}),
    } as unknown as HostServices;
    const watch = new EvidenceWatch(new MemoryEventLog(), services);
    await watch.start();
    await expect(watch.verifyNow()).rejects.toThrow('page 3');
    await expect(watch.latest()).rejects.toThrow('page 3');
    expect(evidenceBadges(watch.current())[0]!.text).toContain('Chain unreadable');
    expect(evidenceBadges(watch.current())[0]!.text).toContain('page 3 is reached twice');
    fail = false;
    await watch.verifyNow();
    expect(evidenceBadges(watch.current())[0]!.text).toContain('Chain verified to seq 0');
    watch.stop();
  });
});

describe('the Auth page', () => {
  it('names where a login stands: valid, expiring (within 5 minutes), expired, not authenticated, invalid', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const base = { name: 'gh', kind: 'provider' as const, storedAs: 'vault:gh_oauth', scopes: [], refreshable: true };
    const text = (status: Parameters<typeof loginState>[0]): string =>
      loginState(status, now).text.replace(/<[^>]+>/g, '');
    expect(text({ ...base, state: 'valid', expiresAt: now + 47 * 60_000 })).toBe('valid expires in 47m');
    expect(text({ ...base, state: 'valid', expiresAt: now + 90_000 })).toBe('expiring in 2m, refreshed on use');
    expect(text({ ...base, state: 'valid', refreshable: false, expiresAt: now + 30_000 })).toBe('expiring in 30s');
    expect(text({ ...base, state: 'valid' })).toBe('valid no expiry');
    expect(text({ ...base, state: 'expired' })).toBe('expired refreshed on next use');
    expect(text({ ...base, state: 'expired', refreshable: false })).toBe('expired log in again');
    expect(text({ ...base, state: 'not_authenticated', refreshable: false })).toBe('not authenticated');
    expect(text({ ...base, state: 'invalid' })).toBe('invalid the stored vault:gh_oauth is not a token bundle');
  });
});
