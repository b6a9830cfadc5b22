import { createHash } from 'node:crypto';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Recorded } from '../../src/events/envelope.js';
import { createKernel } from '../../src/kernel/kernel.js';
import { plugin as cliPlugin } from '@factorly/plugin-provider-cli';
import { projectEvents } from '../helpers/events.js';
import { inline } from '../helpers/kernel.js';
import { runCli, tempProject } from '../helpers/project.js';

const TOOLS = `tools:
  sink:
    type: cli
    command: wc
    args: ["-c"]
    stdin: "{{text}}"
    parameters: [{name: text, type: text, required: true}, {name: extra, type: json}]
  flood:
    type: cli
    command: sh
    args: ["-c", "head -c {{bytes}} /dev/zero | tr '\\\\0' o; head -c {{bytes}} /dev/zero | tr '\\\\0' e >&2; exit {{code}}"]
    parameters: [{name: bytes, type: integer, required: true}, {name: code, type: integer, default: 0}]
`;

const MiB = 1024 * 1024;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** Calls tools through a kernel over the project's own LMDB log (as `factorly call` does), then stops it. */
async function callIn(root: string, calls: { tool: string; params: Record<string, unknown> }[]) {
  const kernel = await createKernel({
    cwd: root,
    globalDir: join(root, 'no-global'),
    inlinePlugins: [inline(cliPlugin)],
  });
  try {
    const outcomes = [];
    for (const { tool, params } of calls)
      outcomes.push(await kernel.pipeline.call({ tool, params: params as never, iface: 'cli' }));
    return outcomes;
  } finally {
    await kernel.stop();
  }
}

function project(settings = ''): string {
  const root = tempProject({ '.factorly/factorly.yaml': `${settings}${TOOLS}` });
  mkdirSync(join(root, 'no-global'));
  return root;
}

const ofType = <T extends Recorded['type']>(events: Recorded[], type: T, callId: string) =>
  events.filter((e): e is Recorded<T> => e.type === type && (e.data as { callId: string }).callId === callId);

describe('the log stores bounded values', () => {
  it('stores a 10 MB param as a capped prefix with its byte count and SHA-256, and the log stays small', async () => {
    const root = project();
    const text = `${'é'.repeat(10)}${'x'.repeat(10 * MiB)}`;
    const [outcome] = await callIn(root, [{ tool: 'sink', params: { text } }]);
    expect(outcome).toMatchObject({ status: 'success', output: `${Buffer.byteLength(text)}\n` });
    const events = await projectEvents(root);
    const [requested] = ofType(events, 'call.requested', outcome.callId);
    const stored = requested.data.params.text as string;
    expect(text.startsWith(stored)).toBe(true);
    expect(bytesOf(requested.data.params)).toBeLessThanOrEqual(64 * 1024);
    expect(Buffer.byteLength(stored)).toBeGreaterThan(60 * 1024);
    const [capped] = ofType(events, 'call.params_capped', outcome.callId);
    expect(capped.data).toEqual({
      callId: outcome.callId,
      params: { text: { bytes: Buffer.byteLength(text), sha256: sha256(text) } },
    });
    expect(statSync(join(root, '.factorly', 'events.lmdb')).size).toBeLessThan(2 * MiB);
  });

  it('keeps the params as a whole under the cap: many mid-sized values and a big JSON value are capped too', async () => {
    const root = project();
    const extra = { rows: Array.from({ length: 5000 }, (_, i) => ({ i, name: `row ${i}` })) };
    const [outcome] = await callIn(root, [{ tool: 'sink', params: { text: 'y'.repeat(60 * 1024), extra } }]);
    const events = await projectEvents(root);
    const [requested] = ofType(events, 'call.requested', outcome.callId);
    expect(bytesOf(requested.data.params)).toBeLessThanOrEqual(64 * 1024);
    const [capped] = ofType(events, 'call.params_capped', outcome.callId);
    expect(Object.keys(capped.data.params)).toContain('extra');
    expect(capped.data.params.extra).toEqual({ bytes: bytesOf(extra), sha256: sha256(JSON.stringify(extra)) });
    expect(JSON.stringify(extra).startsWith(requested.data.params.extra as string)).toBe(true);
  });

  it('bounds the params of a refused call too, whatever their names (`__proto__`, `constructor`)', async () => {
    const root = project();
    const params = JSON.parse(
      `{"text": "a", "__proto__": "${'p'.repeat(200 * 1024)}", "constructor": "${'c'.repeat(100 * 1024)}"}`,
    ) as Record<string, unknown>;
    const [outcome] = await callIn(root, [{ tool: 'sink', params }]);
    expect(outcome).toMatchObject({ status: 'blocked' });
    const events = await projectEvents(root);
    const [requested] = ofType(events, 'call.requested', outcome.callId);
    expect(bytesOf(requested.data.params)).toBeLessThanOrEqual(64 * 1024);
    expect(Object.keys(requested.data.params).sort()).toEqual(['__proto__', 'constructor', 'text']);
    const [capped] = ofType(events, 'call.params_capped', outcome.callId);
    expect(Object.keys(capped.data.params).sort()).toEqual(['__proto__', 'constructor']);
  });

  it('names at most 256 params of a call sent 100,000; the rest are left out, counted, with their size and digest, and replay refuses it', async () => {
    const root = project();
    const params: Record<string, unknown> = { text: 'a' };
    for (let i = 0; i < 100_000; i++) params[`key${i}`] = i;
    const [outcome] = await callIn(root, [{ tool: 'sink', params }]);
    expect(outcome).toMatchObject({ status: 'blocked', blockedBy: 'invalid' });
    // The refusal names ten unknown params and counts the rest, rather than naming 100,000.
    expect(outcome.error).toMatch(/unknown parameter "key9"; and 99990 more unknown parameters$/);
    const events = await projectEvents(root);
    const [requested] = ofType(events, 'call.requested', outcome.callId);
    expect(bytesOf(requested.data.params)).toBeLessThanOrEqual(64 * 1024);
    expect(Object.keys(requested.data.params)).toHaveLength(256);
    const [capped] = ofType(events, 'call.params_capped', outcome.callId);
    const left = Object.fromEntries(Object.entries(params).slice(256));
    expect(capped.data.omitted).toEqual({
      count: 100_001 - 256,
      bytes: bytesOf(left),
      sha256: sha256(JSON.stringify(left)),
    });
    expect(runCli(['logs', 'replay', outcome.callId], root)).toMatchObject({
      status: 1,
      stderr: expect.stringContaining(
        `cannot replay call ${outcome.callId}: 99745 of its params were left out of the record`,
      ),
    });
  });

  it('refuses a value nested deeper than 64 levels, and records it as its JSON text (100,000 levels: past any recursion)', async () => {
    const root = project();
    const depth = 100_000;
    const deep = JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as unknown;
    const [outcome] = await callIn(root, [{ tool: 'sink', params: { text: 'a', extra: deep } }]);
    expect(outcome).toMatchObject({
      status: 'blocked',
      error: expect.stringContaining('extra: nests deeper than 64 levels'),
    });
    const events = await projectEvents(root);
    const [requested] = ofType(events, 'call.requested', outcome.callId);
    const text = `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(text.startsWith(requested.data.params.extra as string)).toBe(true);
    const [capped] = ofType(events, 'call.params_capped', outcome.callId);
    expect(capped.data.params.extra).toEqual({ bytes: text.length, sha256: sha256(text) });
  });

  it('stores outputs, errors and diagnostics capped at 64 KiB by default, with the size and digest of the whole output', async () => {
    const root = project();
    const [ok, failed] = await callIn(root, [
      { tool: 'flood', params: { bytes: 10 * MiB } },
      { tool: 'flood', params: { bytes: 10 * MiB, code: 3 } },
    ]);
    expect(ok.output).toHaveLength(10 * MiB);
    const events = await projectEvents(root);
    for (const outcome of [ok, failed]) {
      const [completed] = ofType(events, 'call.completed', outcome.callId);
      expect(completed.data.output).toMatchObject({
        bytes: 10 * MiB,
        sha256: sha256('o'.repeat(10 * MiB)),
        truncated: true,
      });
      expect(Buffer.byteLength(completed.data.output.text)).toBe(64 * 1024);
      const stderr = completed.data.error ?? completed.data.diagnostics ?? '';
      expect(stderr).toContain(`capped in the log: ${10 * MiB} bytes, sha256 ${sha256('e'.repeat(10 * MiB))}`);
      expect(Buffer.byteLength(stderr)).toBeLessThan(64 * 1024 + 200);
    }
    expect(statSync(join(root, '.factorly', 'events.lmdb')).size).toBeLessThan(2 * MiB);
  });

  it('takes its caps from the `log:` block of the config', async () => {
    const root = project('log:\n  max_param_bytes: 1024\n  max_output_bytes: 2048\n');
    const [outcome] = await callIn(root, [
      { tool: 'sink', params: { text: 'z'.repeat(5000) } },
      { tool: 'flood', params: { bytes: 5000 } },
    ]);
    const events = await projectEvents(root);
    expect(bytesOf(ofType(events, 'call.requested', outcome.callId)[0].data.params)).toBeLessThanOrEqual(1024);
    const flood = events.filter((e): e is Recorded<'call.completed'> => e.type === 'call.completed').at(-1)!;
    expect(flood.data.output).toMatchObject({ bytes: 5000, truncated: true });
    expect(flood.data.output.text).toHaveLength(2048);
  });

  it('refuses a malformed `log:` block with an error naming the key', () => {
    const bad = (settings: string) => runCli(['tools'], project(settings));
    expect(bad('log:\n  max_param_bytes: -5\n')).toMatchObject({
      status: 1,
      stderr: expect.stringContaining('log.max_param_bytes must be a whole number of bytes from 1024'),
    });
    expect(bad('log:\n  max_output_bytes: lots\n').stderr).toContain(
      'log.max_output_bytes must be a whole number of bytes from 1024',
    );
    expect(bad('log:\n  max_params: 1\n').stderr).toContain('unknown key "max_params" in log');
    expect(bad('log: 5\n').stderr).toContain('"log" must be a mapping');
  });

  it(
    'says when a recorded param was capped (logs show, replay) and replays it only with that param given again',
    { timeout: 60_000 },
    async () => {
      const root = project();
      const text = 'w'.repeat(200 * 1024);
      const [outcome] = await callIn(root, [{ tool: 'sink', params: { text } }]);
      const refused = runCli(['logs', 'replay', outcome.callId], root);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain(
        `param "text" of call ${outcome.callId} was recorded capped (${200 * 1024} bytes, sha256 ${sha256(text).slice(0, 16)}…)`,
      );
      expect(refused.stderr).toContain('--param text=');
      const shown = runCli(['logs', 'replay', outcome.callId, '--show'], root);
      expect(shown).toMatchObject({ status: 0 });
      expect(shown.stdout).toContain('warning: param "text" was recorded capped');
      expect(runCli(['logs', 'show', outcome.callId], root).stdout).toContain(
        `param text: capped in the log (${200 * 1024} bytes, sha256 ${sha256(text).slice(0, 16)}…)`,
      );
      expect(runCli(['logs', 'replay', outcome.callId, '--param', 'text=again'], root)).toMatchObject({
        status: 0,
        stdout: '5\n',
      });
    },
  );
});
