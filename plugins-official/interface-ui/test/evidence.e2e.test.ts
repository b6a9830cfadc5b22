import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tamper } from '../../../test/helpers/forger.js';
import { cli, DESKTOP, events, launchChromium, project, shoot, startUi, type RunningUi } from './harness.js';

const YAML = `tools:
  say:
    type: cli
    command: echo
    args: ["{{text}}"]
`;

let ui: RunningUi;
let browser: Browser;
let page: Page;
let verifiedBefore: number;
let signed: { size: number; file: string; checkpoint: string };
const proj = project({ '.factorly/factorly.yaml': YAML });

beforeAll(async () => {
  for (const text of ['one', 'two', 'three'])
    expect((await cli(['call', 'say', '--text', text], proj.root)).status).toBe(0);
  const checkpoint = await cli(['logs', 'checkpoint', '--json'], proj.root);
  expect(checkpoint.status).toBe(0);
  signed = JSON.parse(checkpoint.stdout);
  const verified = await cli(['logs', 'verify', '--json'], proj.root);
  verifiedBefore = JSON.parse(verified.stdout).verified;
  [ui, browser] = await Promise.all([startUi(proj.root), launchChromium()]);
  page = await (await browser.newContext({ viewport: DESKTOP })).newPage();
  await page.goto(ui.url);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await ui?.stop();
  proj.remove();
});

describe('evidence at a glance', () => {
  it('shows in every header the chain as verified, to the seq it reached, and the newest checkpoint', async () => {
    // The first verification runs as the UI starts; until it ends the badge says it is under way.
    await expect
      .poll(
        async () => {
          await page.goto(`${ui.origin}/history`);
          return page.locator('.evidence-chain').innerText();
        },
        { timeout: 30_000 },
      )
      .toMatch(/^Chain verified to seq \d+$/);
    const seq = Number(/(\d+)$/.exec(await page.locator('.evidence-chain').innerText())![1]);
    expect(seq).toBeGreaterThanOrEqual(verifiedBefore);
    expect(await page.locator('.evidence-checkpoint').innerText()).toBe(`Checkpoint ${signed.size}`);
    await page.goto(`${ui.origin}/dashboard`);
    expect(await page.locator('.evidence-chain').innerText()).toBe(`Chain verified to seq ${seq}`);
    await shoot(page, 'evidence-badge');
  });

  it('hands out the newest checkpoint and the verifier key, as the files the CLI wrote', async () => {
    await page.goto(`${ui.origin}/audit`);
    expect(await page.locator('#checkpoint dd').first().innerText()).toBe(String(signed.size));
    const note = await page.request.get(`${ui.origin}/audit/checkpoint.txt`);
    expect(note.status()).toBe(200);
    expect(note.headers()['content-disposition']).toBe(`attachment; filename="checkpoint-${signed.size}.txt"`);
    expect(await note.text()).toBe(readFileSync(signed.file, 'utf8'));
    const key = await page.request.get(`${ui.origin}/audit/log.pub`);
    expect(await key.text()).toBe(readFileSync(`${proj.root}/.factorly/log.pub`, 'utf8'));
    // Without the session, neither is handed out.
    expect((await fetch(`${ui.origin}/audit/log.pub`, { redirect: 'manual' })).status).not.toBe(200);
  });

  it('names a log modified behind its back, on the audit page (linking the broken seq to its call) and then in every header', async () => {
    const requested = (await events(proj.root)).find((e) => e.type === 'call.requested')!;
    const { seq } = requested;
    await tamper(proj.root, (dbs) =>
      dbs.events.putSync(seq, Buffer.from(dbs.events.getBinary(seq)!.toString().replace('"id":"', '"id":"forged-'))),
    );
    // The page answers at once from the newest result; the full verification it asks for in the
    // background finds the old event changed, and the next look shows it.
    await expect
      .poll(
        async () => {
          await page.goto(`${ui.origin}/audit`);
          return page.locator('.chain h2').innerText();
        },
        { timeout: 30_000 },
      )
      .toBe('Hash chain broken');
    expect(await page.locator('.chain p').first().innerText()).toMatch(
      new RegExp(`^Broken at seq ${seq} \\(modified\\): `),
    );
    const link = page.locator('.chain p a.finding-call').first();
    expect(await link.innerText()).toBe(`seq ${seq}`);
    expect(await link.getAttribute('href')).toBe(`/calls/${(requested.data as { callId: string }).callId}`);
    await page.goto(`${ui.origin}/history`);
    expect(await page.locator('.evidence-chain').innerText()).toBe(`Chain broken at seq ${seq}`);
    await shoot(page, 'evidence-broken');
  });
});
