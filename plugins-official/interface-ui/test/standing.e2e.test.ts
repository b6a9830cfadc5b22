import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, events, project, shoot as shootPage, type RunningUi, openUi, type OpenUi } from './harness.js';

const YAML = `tools:
  ship:
    type: cli
    command: echo
    args: [shipped]
    shadow: {confirm: {for: 30m}}
`;

let ui: RunningUi;
let opened: OpenUi;
let page: Page;
const proj = project({ '.factorly/factorly.yaml': YAML });

beforeAll(async () => {
  opened = await openUi(proj);
  ({ ui, page } = opened);
}, 60_000);

afterAll(async () => {
  expect(await opened?.close()).toBe(0);
});

describe('standing approvals on the approvals page', () => {
  it('offers approving for 30 minutes, records the choice, lists the approval and revokes it', async () => {
    await page.goto(`${ui.origin}/approvals`);
    const first = cli(['call', 'ship'], proj.root);
    const card = page.locator('#approvals-list .approval');
    await expect.poll(() => card.count(), { timeout: 30_000 }).toBe(1);
    expect(await card.getByRole('button').allInnerTexts()).toEqual(['Approve once', 'Approve for 30 minutes', 'Deny']);
    await card.getByRole('button', { name: 'Approve for 30 minutes' }).click();
    await page.waitForURL(/answered=standing/);
    expect(await first).toMatchObject({ status: 0, stdout: 'shipped\n' });
    const answered = (await events(proj.root)).filter((e) => e.type === 'confirm.answered').map((e) => e.data);
    expect(answered).toEqual([expect.objectContaining({ approved: true, standing: 'window', by: 'ui' })]);

    await page.goto(`${ui.origin}/approvals`);
    const rows = page.locator('table.standing tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().innerText()).toContain('every call (for 30 minutes)');
    await shootPage(page, 'approvals-standing');

    await rows.first().getByRole('button', { name: 'Revoke' }).click();
    await page.waitForURL(/answered=revoked/);
    expect(await page.locator('table.standing').count()).toBe(0);
    const revoked = (await events(proj.root)).filter((e) => e.type === 'approval.revoked').map((e) => e.data);
    expect(revoked).toEqual([expect.objectContaining({ by: 'ui' })]);
  }, 60_000);
});
