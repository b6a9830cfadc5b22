import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, openUi, project, shoot, spawnCli, type OpenUi, type RunningUi } from './harness.js';

const YAML = `tools:
  deploy:
    type: cli
    command: echo
    args: ["deployed {{env}}"]
    parameters:
      - name: env
        required: true
    shadow: {confirm: true, timeout: 2m}
  hurry:
    type: cli
    command: echo
    args: ["too late"]
    shadow: {confirm: true, timeout: 2s}
`;

let opened: OpenUi;
const proj = project({ '.factorly/factorly.yaml': YAML });
let ui: RunningUi;
let page: Page;
let agent: Client;

beforeAll(async () => {
  opened = await openUi(proj, { agents: [['claude-code', '1.0.42']] });
  ({ ui, page } = opened);
  [agent] = opened.agents;
  await page.goto(`${ui.origin}/approvals`);
}, 60_000);

afterAll(async () => expect(await opened?.close()).toBe(0));

const cards = () => page.locator('#approvals-list .approval');
const pending = () => page.locator('#pending-count').innerText();

describe('approvals that are true', () => {
  it('shows who asks, with what, how long it has waited and how long is left; a card answered in another tab goes away here', async () => {
    const asked = agent.callTool({ name: 'deploy', arguments: { env: 'prod' } });
    await cards().first().waitFor({ timeout: 20_000 });
    const card = cards().first();
    expect(await card.locator('dl.facts dd').first().innerText()).toMatch(/^claude-code 1\.0\.42 [0-9a-f]{8}$/);
    expect(await card.locator('dl.facts dd a.agent').getAttribute('href')).toMatch(/^\/agents\/[0-9a-f-]{36}$/);
    expect(await card.locator('pre').innerText()).toBe('{\n  "env": "prod"\n}');
    expect(await card.locator('.deadline').innerText()).toMatch(/^declined in 1 min [45]\d s unless answered$/);
    const waited = await card.locator('time.elapsed').innerText();
    await expect.poll(() => card.locator('time.elapsed').innerText(), { timeout: 5_000 }).not.toBe(waited);
    await shoot(page, 'approvals-card');

    // The same page in a second tab answers; this one follows.
    const other = await page.context().newPage();
    await other.goto(`${ui.origin}/approvals`);
    await other.getByRole('button', { name: 'Approve' }).click();
    await other.waitForURL(/answered=approved/);
    await other.close();
    const answered = await asked;
    expect(answered.isError).toBeFalsy();
    expect(answered.content).toEqual([{ type: 'text', text: 'deployed prod\n' }]);
    await expect.poll(() => cards().count()).toBe(0);
    expect(await pending()).toBe('0');
  });

  it('drops the card of a call whose process was killed (SIGKILL), and the badge counts it no more', async () => {
    const waiting = spawnCli(['call', 'deploy', '--env', 'staging'], proj.root);
    await cards().first().waitFor({ timeout: 20_000 });
    expect(await pending()).toBe('1');
    // Piped, the call says where it waits.
    await expect
      .poll(() => waiting.said(), { timeout: 10_000 })
      .toContain(`approve or deny it at ${ui.origin}/approvals`);
    const ended = new Promise((resolve) => waiting.on('exit', resolve));
    process.kill(-waiting.pid!, 'SIGKILL');
    await ended;
    await expect.poll(() => cards().count(), { timeout: 10_000 }).toBe(0);
    expect(await pending()).toBe('0');
    const log = await events(proj.root);
    const callId = (log.findLast((e) => e.type === 'call.requested')!.data as { callId: string }).callId;
    expect(log.filter((e) => e.type === 'call.interrupted').map((e) => e.data)).toEqual([
      expect.objectContaining({ callId }),
    ]);
    // Approving what is gone says so instead of doing nothing.
    const csrf = (await page.locator('body').getAttribute('data-csrf'))!;
    const late = await page.request.post(`${ui.origin}/approvals/${callId}/approve`, {
      form: { _csrf: csrf },
      headers: { origin: ui.origin },
    });
    expect(late.url()).toBe(`${ui.origin}/approvals?answered=gone`);
  });

  it('drops the card of a call nobody answered in time, and of one its agent cancelled', async () => {
    const hurried = agent.callTool({ name: 'hurry', arguments: {} });
    await cards().first().waitFor({ timeout: 20_000 });
    expect(await cards().first().locator('.deadline').innerText()).toMatch(/^declined in [012] s unless answered$/);
    await expect.poll(() => cards().count(), { timeout: 10_000 }).toBe(0);
    expect(await hurried).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringContaining('confirmation timed out after 2s') }],
    });

    const stop = new AbortController();
    const cancelled = agent.callTool({ name: 'deploy', arguments: { env: 'dev' } }, undefined, { signal: stop.signal });
    await cards().first().waitFor({ timeout: 20_000 });
    stop.abort();
    await expect(cancelled).rejects.toThrow();
    await expect.poll(() => cards().count(), { timeout: 10_000 }).toBe(0);
    expect(await pending()).toBe('0');
  });
});
