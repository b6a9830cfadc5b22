import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LmdbEventLog } from 'factorly/events';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openUi, project, shoot, TOOLS, type OpenUi, type RunningUi } from './harness.js';

const YAML = `tools:
${TOOLS.say}${TOOLS.forbidden}${TOOLS.triage}  fail:
    type: cli
    command: sh
    args: ["-c", "echo broken pipe >&2; exit 3"]
  limited:
    type: cli
    command: echo
    args: ["ok"]
    shadow: {rate_limit: 1/min}
`;

let opened: OpenUi;
const proj = project({ '.factorly/factorly.yaml': YAML });
let ui: RunningUi;
let page: Page;
let claude: Client;
let cursor: Client;

beforeAll(async () => {
  opened = await openUi(proj, {
    agents: [
      ['claude-code', '1.0.42'],
      ['cursor', '0.50.1'],
    ],
  });
  ({ ui, page } = opened);
  [claude, cursor] = opened.agents;
  await Promise.all([
    claude.callTool({ name: 'triage', arguments: {} }).then(() => claude.callTool({ name: 'fail', arguments: {} })),
    (async () => {
      for (let i = 0; i < 3; i += 1) await cursor.callTool({ name: 'limited', arguments: {} });
      await cursor.callTool({ name: 'say', arguments: { text: 'hi' } });
    })(),
  ]);
}, 60_000);

afterAll(async () => expect(await opened?.close()).toBe(0));

const texts = (selector: string) => page.locator(selector).allInnerTexts();

describe('the agents page', () => {
  it('lists each agent by its client with its sessions, calls, errors, blocked calls, last seen and tools', async () => {
    await page.goto(`${ui.origin}/agents`);
    const rows = page.locator('table.agents tbody tr');
    expect(await rows.count()).toBe(2);
    const claudeRow = rows.filter({ hasText: 'claude-code 1.0.42' });
    // triage and its three inner calls, and fail: one error, one blocked (an inner call counts for its agent).
    expect((await claudeRow.locator('td').allInnerTexts()).slice(1, 5)).toEqual(['1', '5', '1', '1']);
    expect(await claudeRow.locator('td.t-tools a').allInnerTexts()).toEqual(['say', 'fail', 'forbidden']);
    const cursorRow = rows.filter({ hasText: 'cursor 0.50.1' });
    expect((await cursorRow.locator('td').allInnerTexts()).slice(1, 5)).toEqual(['1', '4', '0', '2']);
    expect(await cursorRow.locator('td').nth(5).innerText()).toMatch(/^\d\d:\d\d:\d\d$/);
    await shoot(page, 'agents');

    await claudeRow.locator('a.agent').click();
    await page.waitForURL(/\/agents\/[0-9a-f-]{36}$/);
    expect(await page.locator('h1').innerText()).toMatch(/^claude-code 1\.0\.42 [0-9a-f]{8}$/);
    expect(await texts('.tiles .tile-value')).toEqual(['5', '60 %', '1', '1', '1']);
    expect(await texts('table.agent-tools tbody td:first-child')).toEqual(['say', 'fail', 'forbidden', 'triage']);
    expect(await page.locator('table.history tbody tr').count()).toBe(5);
    await shoot(page, 'agent');
    // Its errors, as history shows them, with the reason in the row.
    await page.locator('.tiles a', { hasText: 'Errors' }).click();
    await page.waitForURL(/\/history\?agent=[0-9a-f-]{36}&status=error$/);
    expect(await texts('#history-rows .t-tool a:not(.inner)')).toEqual(['fail']);
    expect(await texts('#history-rows .row-reason')).toEqual([expect.stringContaining('broken pipe')]);
  });

  it('is where every agent name leads: history rows, call pages and the dashboard', async () => {
    // Each link's page is read once it has loaded, never the page the link was on.
    const agentPage = /\/agents\/[0-9a-f-]{36}$/;
    await page.goto(`${ui.origin}/history?tool=limited`);
    await page.locator('#history-rows a.agent').first().click();
    await page.waitForURL(agentPage);
    expect(await page.locator('h1').innerText()).toMatch(/^cursor 0\.50\.1 /);
    await page.goto(`${ui.origin}/dashboard`);
    await page.locator('.agents-chart a.agent', { hasText: 'claude-code' }).click();
    await page.waitForURL(agentPage);
    expect(await page.locator('h1').innerText()).toMatch(/^claude-code 1\.0\.42 /);
    await page.goto(`${ui.origin}/history?tool=triage`);
    await page.locator('#history-rows .t-tool a').first().click();
    await page.waitForURL(/\/calls\//);
    await page.locator('.call-meta a.agent').click();
    await page.waitForURL(agentPage);
    expect(await page.locator('h1').innerText()).toMatch(/^claude-code 1\.0\.42 /);
    // Calls no agent made have a page too, by the way they came in.
    expect((await page.goto(`${ui.origin}/agents/iface%3Aui`))?.status()).toBe(404);
  });
});

describe('every object links to its neighbours', () => {
  it('a call links to its tool, its inner calls and back to its parent; the waterfall folds, marks the critical path and says why a bar failed', async () => {
    await page.goto(`${ui.origin}/history?tool=triage`);
    await page.locator('#history-rows .t-tool a').first().click();
    await page.waitForURL(/\/calls\//);
    const root = page.url();
    expect(await texts('.wf-name')).toEqual(['triage', 'say', 'say', 'forbidden']);
    // The critical path: the script, then the inner call it waited for last.
    expect(await texts('.wf-item.critical .wf-name')).toEqual(['triage', 'forbidden']);
    const blocked = page.locator('.wf-item').nth(3);
    expect(await blocked.locator('a.wf-row').getAttribute('title')).toBe(
      'blocked: tool "forbidden" is denied by shadow policy',
    );
    expect(await blocked.locator('rect.wf-bar title').textContent()).toContain('— tool "forbidden" is denied');

    const fold = page.locator('.wf-item').first().locator('button.wf-toggle');
    await fold.click();
    expect(await page.locator('.wf-item:visible').count()).toBe(1);
    expect(await fold.getAttribute('aria-expanded')).toBe('false');
    await fold.click();
    expect(await page.locator('.wf-item:visible').count()).toBe(4);
    await shoot(page, 'call-links');

    // Each linked page is read once it has loaded, never the page the link was on.
    await page.locator('.depth-0 .detail dd a', { hasText: 'forbidden' }).click();
    await blocked.locator('.detail h3 a').click();
    await page.waitForURL((url) => url.pathname.startsWith('/calls/') && url.href !== root);
    expect(page.url()).not.toBe(root);
    expect(await page.locator('h1').innerText()).toBe('forbidden blocked');
    await page.locator('nav.neighbours a[rel="up"]').click();
    await page.waitForURL(root);
    expect(page.url()).toBe(root);
    await page.locator('nav.neighbours a', { hasText: 'Tool triage' }).click();
    await page.waitForURL(`${ui.origin}/tools/triage`);
    expect(page.url()).toBe(`${ui.origin}/tools/triage`);
    await page.locator('a', { hasText: 'All its calls' }).click();
    await page.waitForURL((url) => url.pathname === '/history');
    expect(await texts('#history-rows .t-tool a:not(.inner)')).toEqual(['triage']);
  });

  it('the dashboard links each bucket, total and blocked rule to the history behind it; blocked calls are one row per rule', async () => {
    await page.goto(`${ui.origin}/dashboard?range=1h`);
    expect(await texts('table.blocked-table td:first-child')).toEqual(['rate_limited', 'deny']);
    expect(await texts('table.blocked-table td.num')).toEqual(['2', '1']);
    await page.locator('table.blocked-table td.num a').first().click();
    await page.waitForURL((url) => url.pathname === '/history');
    expect(page.url()).toMatch(/\/history\?status=blocked&since=/);
    expect(await page.locator('#history-rows tr').count()).toBe(3);

    await page.goto(`${ui.origin}/dashboard?range=1h`);
    // A column's calls (its title says how many) are the rows of the history it links to.
    const column = page.locator('svg.plot a').last();
    const [, calls] = /: (\d+) calls?$/.exec((await column.locator('> title').textContent())!)!;
    await column.click();
    await page.waitForURL((url) => url.pathname === '/history');
    expect(page.url()).toMatch(/\/history\?since=[^&]+&until=/);
    expect(await page.locator('#history-rows tr').count()).toBe(Number(calls));
  });

  it('history reads since and until, names a bad one, and says when nothing matches', async () => {
    await page.goto(`${ui.origin}/history?since=10m&tool=limited`);
    expect(await page.locator('#history-rows tr').count()).toBe(3);
    const bad = await page.goto(`${ui.origin}/history?since=10%20parsecs`);
    expect(bad?.status()).toBe(400);
    expect(await page.getByRole('alert').innerText()).toBe(
      'since: expected a seq number, a duration ago (15m, 2h, 1d) or a time (2026-11-30T10:00:00Z), got "10 parsecs"',
    );
    expect(await page.locator('#history-rows tr').count()).toBe(0);
    await page.goto(`${ui.origin}/history?tool=no-such-tool`);
    expect(await page.locator('#history-empty').innerText()).toBe('No calls match these filters. Show all calls');
    await page.goto(`${ui.origin}/history?until=2000-01-01`);
    expect(await page.locator('#history-empty').innerText()).toBe('No calls match these filters. Show all calls');
  });

  it('searches by call id, hash prefix or text, saying how far it searched; shows a loading note until the rows arrive', async () => {
    const ids = () => page.locator('#history-rows tr').evaluateAll((rows) => rows.map((row) => row.id));
    await page.goto(`${ui.origin}/history?tool=fail`);
    const [row] = await ids();
    const callId = row.slice('call-'.length);
    // The page is streamed: a note first, the table when its rows are read; the note hidden once it is there.
    const raw = await page.request.get(`${ui.origin}/history?tool=fail`);
    expect(raw.headers()['transfer-encoding']).toBe('chunked');
    const body = await raw.text();
    expect(body.indexOf('Loading calls…')).toBeGreaterThan(0);
    expect(body.indexOf('Loading calls…')).toBeLessThan(body.indexOf('<table class="history">'));
    expect(await page.locator('#history-loading').count()).toBe(1);
    expect(await page.locator('#history-loading').isVisible()).toBe(false);

    await page.goto(`${ui.origin}/history`);
    await page.getByLabel('Search').fill(callId);
    // The form's answer is a new page, streamed: read its rows once it has loaded, not the page before it.
    await Promise.all([
      page.waitForURL((url) => url.searchParams.get('q') === callId, { waitUntil: 'load' }),
      page.getByRole('button', { name: 'Filter' }).click(),
    ]);
    expect(await ids()).toEqual([row]);
    expect(await page.locator('#history-search').innerText()).toContain(`The call with id "${callId}".`);

    const log = new LmdbEventLog({ path: join(proj.root, '.factorly', 'events.lmdb'), readOnly: true });
    const prefix = (await log.readCall(callId)).at(-1)!.hash.slice(0, 10);
    await log.close();
    await page.goto(`${ui.origin}/history?q=${prefix}`);
    expect(await ids()).toEqual([row]);
    expect(await page.locator('#history-search').innerText()).toMatch(/^Searched all \d+ calls for "[0-9a-f]{10}"/);

    await page.goto(`${ui.origin}/history?q=BROKEN%20pipe`);
    expect(await ids()).toEqual([row]);
    await page.goto(`${ui.origin}/history?q=no-such-text&tool=fail`);
    expect(await page.locator('#history-empty').innerText()).toBe('No calls match these filters. Show all calls');
    await shoot(page, 'history-search');
  });

  it('pages through older calls without losing or repeating one, calls of the same millisecond included', async () => {
    // 150 calls written in one batch: most share their time to the millisecond.
    const log = new LmdbEventLog({ path: join(proj.root, '.factorly', 'events.lmdb') });
    const output = { text: '', bytes: 0, sha256: '', truncated: false };
    await log.append(
      Array.from({ length: 150 }, (_, i) => [
        {
          type: 'call.requested' as const,
          data: { callId: `bulk-${i}`, rootId: `bulk-${i}`, tool: 'bulk', params: { i }, iface: 'cli' as const },
        },
        {
          type: 'call.completed' as const,
          data: { callId: `bulk-${i}`, status: 'success' as const, exitCode: 0, output, durationMs: 1 },
        },
      ]).flat(),
    );
    await log.close();
    const ids = () => page.locator('#history-rows tr').evaluateAll((rows) => rows.map((row) => row.id));
    await page.goto(`${ui.origin}/history?tool=bulk`);
    const first = await ids();
    expect(first).toHaveLength(100);
    // Each page is read once it has loaded, never the page the link was on.
    await Promise.all([
      page.waitForURL((url) => url.searchParams.has('before'), { waitUntil: 'load' }),
      page.getByRole('link', { name: 'Older' }).click(),
    ]);
    const second = await ids();
    expect(second).toHaveLength(50);
    expect(await page.getByRole('link', { name: 'Older' }).count()).toBe(0);
    expect([...first, ...second]).toEqual(Array.from({ length: 150 }, (_, i) => `call-bulk-${149 - i}`));
    await Promise.all([
      page.waitForURL((url) => !url.searchParams.has('before'), { waitUntil: 'load' }),
      page.getByRole('link', { name: 'Newest' }).click(),
    ]);
    expect(await ids()).toEqual(first);
  });
});
