import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printableLine, printableText } from '../../src/base/printable.js';
import { runCli, tempProject, type CliRun } from '../helpers/project.js';

/** Clear the screen, set the window title, recolour: what an agent-chosen name could do to a terminal. */
const EVIL_TOOL = '\x1b[2J\x1b]0;owned\x07evil';
const EVIL_TEXT = 'red\x1b[31m\u202egnp.exe\r';
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/;

const TOOLS = `tools:
  say:
    type: cli
    command: printf
    args: ["%s", "{{text}}"]
    parameters: [{name: text, required: true}]
`;

/**
 * One project whose log holds an agent-chosen tool name with ESC sequences, params and output with
 * them, and tools named like Object.prototype members; every human-readable view is read from it.
 * (The project is copied out of the per-test temp dirs: it is shared by the whole file.)
 */
let root: string;
let evilCall: CliRun;
let sayCall: CliRun;
beforeAll(() => {
  const made = tempProject({ '.factorly/factorly.yaml': TOOLS });
  root = mkdtempSync(join(tmpdir(), 'factorly-escapes-'));
  cpSync(made, root, { recursive: true });
  evilCall = runCli(['call', EVIL_TOOL], root);
  sayCall = runCli(['call', 'say', '--text', EVIL_TEXT], root);
  for (const name of ['constructor', 'toString', '__proto__', 'constructor']) runCli(['call', name], root);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function expectPrintable(run: CliRun): void {
  expect(run.stdout).not.toMatch(RAW_CONTROL);
  expect(run.stderr).not.toMatch(RAW_CONTROL);
}

describe('output for people is safe to print', () => {
  it('escapes control characters and bidi overrides, one line or many', () => {
    expect(printableLine('a\x1b[31mb\nc\td\u202e')).toBe('a\\x1b[31mb\\x0ac\\x09d\\u202e');
    expect(printableText('line 1\r\nline\t2\n\x1b]0;t\x07\rend\x9b')).toBe(
      'line 1\r\nline\t2\n\\x1b]0;t\\x07\\x0dend\\x9b',
    );
  });

  it('a CLI error naming an agent-chosen tool shows the escapes, not the sequences', () => {
    expect(evilCall.status).toBe(1);
    expect(evilCall.stderr).toContain('tool "\\x1b[2J\\x1b]0;owned\\x07evil" not found');
    expectPrintable(evilCall);
  });

  it('a tool output piped to another program stays exact', () => {
    expect(sayCall.status).toBe(0);
    expect(sayCall.stdout).toBe(EVIL_TEXT);
  });

  it('logs, logs --detail, logs stats, logs show and logs replay --until print no raw control character', () => {
    for (const args of [['logs'], ['logs', '--detail'], ['logs', 'stats'], ['logs', 'replay', '--until', '1000']]) {
      const run = runCli(args, root);
      expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(0);
      expectPrintable(run);
      expect(run.stdout, args.join(' ')).toContain('\\x1b[2J\\x1b]0;owned\\x07evil');
    }
    const detail = runCli(['logs', '--detail', '--tool', 'say'], root);
    expect(detail.stdout).toContain('text=red\\x1b[31m\\u202egnp.exe\\x0d');
    const id = JSON.parse(runCli(['logs', '--json', '--tool', 'say'], root).stdout.trim()).call_id as string;
    const show = runCli(['logs', 'show', id], root);
    expectPrintable(show);
    expect(show.stdout).toContain('\\u001b[31m\\u202egnp.exe\\r');
  });

  it('--json stays exact', () => {
    const lines = runCli(['logs', '--json'], root)
      .stdout.trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { tool: string; params: { text?: string } });
    expect(lines.map((l) => l.tool)).toContain(EVIL_TOOL);
    expect(lines.find((l) => l.tool === 'say')!.params.text).toBe(EVIL_TEXT);
  });

  it('counts tools named like Object.prototype members as names (logs stats)', () => {
    const stats = JSON.parse(runCli(['logs', 'stats', '--json'], root).stdout) as { byTool: Record<string, number> };
    expect(stats.byTool).toMatchObject({ constructor: 2, toString: 1 });
    expect(Object.getOwnPropertyDescriptor(stats.byTool, '__proto__')?.value).toBe(1);
    const text = runCli(['logs', 'stats'], root).stdout;
    expect(text).toMatch(/^ {2}constructor +2$/m);
    expect(text).toMatch(/^ {2}toString +1$/m);
    expect(text).not.toContain('native code');
  });
});
