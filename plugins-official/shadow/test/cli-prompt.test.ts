import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ConfirmRequest } from 'factorly';
import { CliPromptChannel } from '../src/cli-prompt.js';

const REQUEST: ConfirmRequest = {
  callId: 'c1',
  tool: 'deploy',
  params: { env: 'prod', notes: 'x'.repeat(400) },
  fingerprint: 'f',
  iface: 'cli',
  reason: 'tool "deploy" requires confirmation',
};

function terminal(tty = true) {
  const input = Object.assign(new PassThrough(), { isTTY: tty });
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => {
    shown += chunk.toString();
  });
  return { channel: new CliPromptChannel({ input, output }), input, shown: () => shown };
}

describe('CLI confirm prompt', () => {
  it('shows the tool and a params preview and approves on "y"', async () => {
    const t = terminal();
    const answer = t.channel.ask(REQUEST, new AbortController().signal);
    t.input.write('Yes\n');
    expect(await answer).toEqual({ approved: true, by: 'cli-prompt' });
    expect(t.shown()).toContain('⚠ Tool "deploy" requires confirmation.\n  params: {"env":"prod","notes":"xxx');
    expect(t.shown()).toContain('… (425 chars)\nProceed? (y/n): ');
  });

  it('declines on any other answer, on end of input and when aborted', async () => {
    const no = terminal();
    const declined = no.channel.ask(REQUEST, new AbortController().signal);
    no.input.write('nope\n');
    expect(await declined).toMatchObject({ approved: false });

    const eof = terminal();
    const ended = eof.channel.ask(REQUEST, new AbortController().signal);
    eof.input.end();
    expect(await ended).toMatchObject({ approved: false });

    const late = terminal();
    const controller = new AbortController();
    const aborted = late.channel.ask(REQUEST, controller.signal);
    controller.abort();
    expect(await aborted).toMatchObject({ approved: false });
  });

  it('does not take a request without a terminal and says why (so another channel may answer), and only serves CLI calls', async () => {
    const piped = terminal(false);
    expect(piped.channel.accepts(REQUEST)).toBe(false);
    expect(piped.channel.whyNot(REQUEST)).toBe('no terminal to ask on (stdin is not a TTY)');
    await expect(piped.channel.ask(REQUEST, new AbortController().signal)).rejects.toThrow(
      'cli-prompt (no terminal to ask on)',
    );
    expect(piped.shown()).toBe('');
    const tty = terminal();
    expect(tty.channel.accepts(REQUEST)).toBe(true);
    expect(tty.channel.whyNot(REQUEST)).toBeUndefined();
    expect(tty.channel.accepts({ ...REQUEST, iface: 'mcp' })).toBe(false);
    expect(tty.channel.whyNot({ ...REQUEST, iface: 'mcp' })).toBeUndefined();
  });
});
