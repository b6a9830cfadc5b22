import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolDefinition } from 'factorly';
import { UiConfirmChannel } from '../src/confirm-channel.js';
import { html } from '../src/html.js';
import { historyRow } from '../src/routes/history.js';
import { toolYaml } from '../src/tool-yaml.js';
import { lockPath, removeLock, writeLock } from '../src/ui-lock.js';

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
    const row = historyRow({
      callId: 'c1', rootId: 'c1', tool: '<img src=x onerror=alert(1)>', iface: 'cli', agentId: '"><script>', params: {},
      requestedAt: '2026-01-02T03:04:05.000Z', status: 'success', durationMs: 12, hash: 'h', seq: 1,
    }).text;
    expect(row).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(row).toContain('&quot;&gt;&lt;script&gt;');
    expect(row).not.toContain('<img');
    expect(html`<p title="${`a'b"c`}">${['<b>', html`<i>ok</i>`]}${undefined}${false}</p>`.text).toBe('<p title="a&#39;b&quot;c">&lt;b&gt;<i>ok</i></p>');
  });
});

describe('the ui confirm channel', () => {
  const noLog = () => {
    throw new Error('the log is only opened when a request is asked');
  };

  it('accepts only while a live process holds the project lock', () => {
    const state = dir();
    const channel = new UiConfirmChannel(state, noLog);
    expect(channel.accepts()).toBe(false);
    writeLock(state, { pid: process.pid, url: 'http://127.0.0.1:1/' });
    expect(channel.accepts()).toBe(true);
    removeLock(state);
    expect(channel.accepts()).toBe(false);
    // A UI that died without cleaning up: its pid no longer runs.
    writeFileSync(lockPath(state), JSON.stringify({ pid: 2 ** 22 + 7, url: 'x' }));
    expect(channel.accepts()).toBe(false);
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
