import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { validateAnswer, type ConfirmPrompt, type ParameterSpec, type QuestionPrompt } from 'factorly';
import { CliPromptChannel } from '../src/cli-prompt.js';

const REQUEST: ConfirmPrompt = {
  kind: 'confirm',
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

describe('CLI prompt: confirmations', () => {
  it('shows the tool and a params preview and approves on "y"', async () => {
    const t = terminal();
    const answer = t.channel.ask(REQUEST, new AbortController().signal);
    t.input.write('Yes\n');
    expect(await answer).toEqual({ action: 'accept', by: 'cli-prompt' });
    expect(t.shown()).toContain('⚠ Tool "deploy" requires confirmation.\n  params: {"env":"prod","notes":"xxx');
    expect(t.shown()).toContain('… (425 chars)\nProceed? (y/n): ');
  });

  it('declines on any other answer, on end of input and when aborted', async () => {
    const no = terminal();
    const declined = no.channel.ask(REQUEST, new AbortController().signal);
    no.input.write('nope\n');
    expect(await declined).toMatchObject({ action: 'decline' });

    const eof = terminal();
    const ended = eof.channel.ask(REQUEST, new AbortController().signal);
    eof.input.end();
    expect(await ended).toMatchObject({ action: 'decline' });

    const late = terminal();
    const controller = new AbortController();
    const aborted = late.channel.ask(REQUEST, controller.signal);
    controller.abort();
    expect(await aborted).toMatchObject({ action: 'decline' });
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

/** A question as the kernel hands it to channels, checking answers as the race will. */
function asking(question: ParameterSpec): QuestionPrompt {
  return {
    kind: 'question',
    callId: 'c2',
    tool: 'factorly.ask',
    iface: 'cli',
    question,
    check: (answer) => validateAnswer(question, answer),
    expiresAt: Date.now() + 60_000,
    replyKey: 'unused',
  };
}
const QUESTION = asking({
  name: 'replicas',
  type: 'integer',
  description: 'How many replicas?',
  required: true,
  min: 1,
});

describe('CLI prompt: questions', () => {
  it('asks the question, asks again while the answer does not fit, and carries the typed answer back', async () => {
    const t = terminal();
    const answer = t.channel.ask(QUESTION, new AbortController().signal);
    t.input.write('many\n');
    await vi.waitFor(() => expect(t.shown()).toContain('expected integer, got "many"'));
    t.input.write('0\n');
    await vi.waitFor(() => expect(t.shown()).toContain('must be at least 1, got 0'));
    t.input.write('3\n');
    expect(await answer).toEqual({ action: 'accept', value: 3, by: 'cli-prompt' });
    expect(t.shown()).toMatch(/^\? How many replicas\?\nreplicas: /);
  });

  it('takes the default on an empty line, shows the choices, and dismisses the question at end of input', async () => {
    const choice = terminal();
    const question = asking({ name: 'env', type: 'enum', enum: ['dev', 'prod'], default: 'dev', required: true });
    const picked = choice.channel.ask(question, new AbortController().signal);
    choice.input.write('\n');
    expect(await picked).toEqual({ action: 'accept', value: 'dev', by: 'cli-prompt' });
    expect(choice.shown()).toContain('? env [dev/prod] (default: "dev")');

    const eof = terminal();
    const ended = eof.channel.ask(QUESTION, new AbortController().signal);
    eof.input.end();
    expect(await ended).toEqual({ action: 'cancel', by: 'cli-prompt' });
  });
});
