import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LmdbEventLog } from 'factorly/events';
import { cli, launchChromium, mcpAgent, project, shoot, startUi, type RunningUi, DESKTOP } from './harness.js';

const YAML = `tools:
  say:
    type: cli
    command: echo
    args: ["{{text}}"]
  forbidden:
    type: cli
    command: echo
    args: ["never printed"]
    shadow: {deny: true}
  triage:
    type: code
    description: Looks at an incident with three tools
    code: |
      async function run() {
        const first = await factorly.call("say", { text: "one" });
        const second = await factorly.call("say", { text: "two" });
        const third = await factorly.call("forbidden", {});
        return [first.output.trim(), second.output.trim(), third.isError() ? "blocked" : "ran"].join(" ");
      }
`;

let ui: RunningUi;
let browser: Browser;
let page: Page;
let agent: Client;
const proj = project({ '.factorly/factorly.yaml': YAML });

beforeAll(async () => {
  [ui, browser, agent] = await Promise.all([
    startUi(proj.root),
    launchChromium(),
    mcpAgent(proj.root, 'claude-code', '1.0.42'),
  ]);
  page = await (await browser.newContext({ viewport: DESKTOP })).newPage();
  // Calls from a terminal, from an MCP agent, and from scripts (the code tool's inner calls).
  for (const args of [
    ['call', 'say', '--text', 'hello'],
    ['call', 'say', '--text', 'again'],
    ['call', 'forbidden'],
    ['call', 'triage'],
  ]) {
    await cli(args, proj.root);
  }
  for (const text of ['from', 'claude']) await agent.callTool({ name: 'say', arguments: { text } });
  await agent.callTool({ name: 'triage', arguments: {} });
}, 90_000);

afterAll(async () => {
  await agent?.close();
  await browser?.close();
  expect(await ui?.stop()).toBe(0);
  proj.remove();
});

const cells = (selector: string) => page.locator(selector).allInnerTexts();

describe('the dashboard', () => {
  it('is the landing page, with figures from CLI, MCP and code-tool calls, and follows new calls live', async () => {
    await page.goto(ui.url);
    expect(page.url()).toBe(`${ui.origin}/dashboard`);
    // 4 + 3 calls from the terminal (the script's three inner calls included), 3 + 3 from the agent.
    expect(await cells('.tile .tile-value')).toEqual(['13', '77 %', '0', '3', '1']);
    expect(await cells('.tools-chart .bar-label')).toEqual(['say', 'forbidden', 'triage']);
    expect(await cells('.tools-chart .bar-value')).toEqual(['8', '3', '2']);
    expect(await cells('.agents-chart .bar-label')).toEqual([
      expect.stringMatching(/^cli$/),
      expect.stringMatching(/^claude-code 1\.0\.42 [0-9a-f]{8}$/),
    ]);
    expect(await cells('.agents-chart .bar-value')).toEqual(['7', '6']);
    expect((await page.locator('table.blocked-table td').allTextContents()).map((t) => t.trim())).toEqual([
      'deny',
      'tool "forbidden" is denied by shadow policy',
      '3',
    ]);
    expect(await cells('table.durations td.t-tool')).toEqual(['say', 'triage']);
    expect(await page.locator('svg.plot rect.s-success').count()).toBeGreaterThan(0);
    expect(await page.locator('svg.plot rect.s-blocked').count()).toBeGreaterThan(0);
    await expect.poll(() => page.locator('body.js-live').count()).toBe(1);

    await cli(['call', 'say', '--text', 'live'], proj.root);
    await expect.poll(() => page.locator('.tile .tile-value').first().innerText(), { timeout: 20_000 }).toBe('14');
    await shoot(page, 'dashboard');

    await page.click('nav.ranges a:has-text("1 h")');
    await page.waitForURL(`${ui.origin}/dashboard?range=1h`);
    expect(await page.locator('svg.plot rect').count()).toBeGreaterThan(0);
    expect(await page.locator('.x-axis span').count()).toBe(5);
  });

  it('names agents by their client in history and its filter', async () => {
    await page.goto(`${ui.origin}/history`);
    const agentCells = await cells('#history-rows .t-agent');
    expect(agentCells.filter((text) => /^claude-code 1\.0\.42 [0-9a-f]{8}$/.test(text))).toHaveLength(6);
    expect(agentCells.some((text) => /[0-9a-f]{8}-[0-9a-f]{4}-/.test(text))).toBe(false);
    await shoot(page, 'history-agents');
    const option = page.locator('select[name="agent"] option', { hasText: 'claude-code 1.0.42' });
    await page.selectOption('select[name="agent"]', (await option.getAttribute('value'))!);
    await page.click('form.filters button');
    await page.waitForURL(/agent=/);
    expect(await cells('#history-rows .t-tool a:not(.inner)')).toEqual([
      'forbidden',
      'say',
      'say',
      'triage',
      'say',
      'say',
    ]);
  });
});

describe('the call waterfall', () => {
  it('shows a code tool with three inner calls, one blocked, and each bar’s details on click', async () => {
    await page.goto(`${ui.origin}/history?tool=triage&iface=cli`);
    await page.locator('#history-rows .t-tool a').click();
    await page.waitForURL(/\/calls\/[0-9a-f-]{36}$/);
    expect(await cells('.wf-name')).toEqual(['triage', 'say', 'say', 'forbidden']);
    expect(await page.locator('.wf-item:nth-child(4) rect.wf-bar').getAttribute('class')).toBe('wf-bar s-blocked');
    expect(await page.locator('.wf-item:nth-child(4) line.marker').getAttribute('class')).toBe('marker d-deny');
    const x = Number(await page.locator('.wf-item:nth-child(3) rect.wf-bar').getAttribute('x'));
    expect(x).toBeGreaterThan(Number(await page.locator('.wf-item:nth-child(2) rect.wf-bar').getAttribute('x')));

    // The root's details show first: the script, with its sha, and what it returned.
    const rootDetail = page.locator('.depth-0 > .detail');
    expect(await rootDetail.isVisible()).toBe(true);
    expect(await rootDetail.locator('pre.output').innerText()).toBe('one two blocked');
    expect(await rootDetail.locator('h4', { hasText: 'Script' }).innerText()).toMatch(
      /^SCRIPT sha [0-9a-f]{12} · javascript$/i,
    );
    expect(await rootDetail.locator('pre.code').innerText()).toContain('factorly.call("forbidden", {})');

    await page.locator('.wf-item:nth-child(4) .wf-row').click();
    const blocked = page.locator('.wf-item:nth-child(4) > .detail');
    expect(await blocked.isVisible()).toBe(true);
    expect(await rootDetail.isVisible()).toBe(false);
    expect(await blocked.locator('.error-text').innerText()).toBe('tool "forbidden" is denied by shadow policy');
    expect(await blocked.locator('.decisions li').innerText()).toBe(
      'deny deny tool "forbidden" is denied by shadow policy',
    );
    await page.locator('.wf-item:nth-child(2) .wf-row').click();
    expect(await page.locator('.wf-item:nth-child(2) > .detail pre.output').innerText()).toBe('one\n');
    await page.locator('.wf-item:nth-child(4) .wf-row').click();
    await shoot(page, 'waterfall');
  });

  it('redirects the old call address and names a call the log does not have', async () => {
    const moved = await page.request.get(`${ui.origin}/history/some-call`, { maxRedirects: 0 });
    expect(moved.status()).toBe(301);
    expect(moved.headers().location).toBe('/calls/some-call');
    const missing = await page.goto(`${ui.origin}/calls/some-call`);
    expect(missing?.status()).toBe(404);
    expect(await page.locator('main .not-found p').first().innerText()).toBe('The log has no call some-call. History');
  });
});

describe('without JavaScript', () => {
  it('renders every page for reading, with a reload link where the page would be live', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: DESKTOP });
    const bare = await context.newPage();
    try {
      await bare.goto(ui.url);
      expect(await bare.locator('.tile .tile-value').first().innerText()).toBe('14');
      expect(await bare.locator('.top .reload').isVisible()).toBe(true);
      expect(await bare.locator('.top .live-on').isVisible()).toBe(false);
      await bare.goto(`${ui.origin}/history?tool=triage&iface=mcp`);
      expect(await bare.locator('.top .reload').isVisible()).toBe(true);
      await bare.locator('#history-rows .t-tool a').click();
      // Selecting a bar needs no script: the details follow the link's #fragment.
      await bare.locator('.wf-item:nth-child(3) .wf-row').click();
      expect(await bare.locator('.wf-item:nth-child(3) > .detail pre.output').innerText()).toBe('two\n');
      for (const path of ['/approvals', '/tools', '/tools/triage', '/tools/triage/edit', '/vault', '/audit']) {
        await bare.goto(`${ui.origin}${path}`);
        expect(await bare.locator('h1').count(), path).toBe(1);
      }
    } finally {
      await context.close();
    }
  });
});

describe('a call recorded by a newer writer', () => {
  it('shows the engine that ran a script when the writer recorded it', async () => {
    const log = new LmdbEventLog({ path: join(proj.root, '.factorly', 'events.lmdb') });
    const data = {
      callId: 'with-engine',
      rootId: 'with-engine',
      tool: 'triage',
      params: {},
      iface: 'cli',
      engine: { name: 'quickjs', version: '0.32.0' },
    };
    await log.append([{ type: 'call.requested', data }]);
    await log.close();
    await page.goto(`${ui.origin}/calls/with-engine`);
    expect(await page.locator('.depth-0 > .detail dl.facts').innerText()).toContain('Engine\nquickjs 0.32.0');
    expect(await page.locator('.wf-dur').innerText()).toBe('running');
  });
});
