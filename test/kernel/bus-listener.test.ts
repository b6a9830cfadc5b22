import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Kernel } from '../../src/kernel/kernel.js';
import { definePlugin } from '../../src/plugins/define-plugin.js';
import { eventsOf, startTestKernel } from '../helpers/kernel.js';

/** A plugin whose live listeners fail: one throws, one rejects. */
const failing = definePlugin({
  id: 'test-failing-listener',
  apiVersion: '1',
  register(registrar) {
    registrar.registerInit({
      deps: { bus: registrar.tokens.EventBus },
      init: ({ bus }) => {
        bus.on('call.requested', () => {
          throw new Error('listener broke');
        });
        bus.on('call.completed', async () => Promise.reject(new Error('listener gave up')));
      },
    });
  },
});

/** A listener whose error quotes what it read: text from agents and upstreams may hold terminal sequences. */
const quoting = definePlugin({
  id: 'test-quoting-listener',
  apiVersion: '1',
  register(registrar) {
    registrar.registerInit({
      deps: { bus: registrar.tokens.EventBus },
      init: ({ bus }) => {
        bus.on('call.requested', () => {
          throw new Error('cannot read \x1b]0;owned\x07 \u202eevil');
        });
      },
    });
  },
});

let kernel: Kernel | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await kernel?.stop();
  kernel = undefined;
});

describe('a failing bus listener', () => {
  it('is reported on stderr naming the event it missed, and never breaks the call or its record', async () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const started = await startTestKernel('tools:\n  hi: {type: cli, command: echo, args: [hi]}\n', [failing]);
    kernel = started.kernel;
    const outcome = await kernel.pipeline.call({ tool: 'hi', params: {}, iface: 'cli' });
    expect(outcome).toMatchObject({ status: 'success', output: 'hi\n' });
    const events = await eventsOf(started.log);
    const seqOf = (type: string) => events.find((event) => event.type === type)!.seq;
    await vi.waitFor(() => expect(written.filter((line) => line.includes('listener'))).toHaveLength(2));
    expect(written).toContain(
      `warning: a listener of call.requested events failed on seq ${seqOf('call.requested')} (the event is recorded; the listener missed it): listener broke\n`,
    );
    expect(written).toContain(
      `warning: a listener of call.completed events failed on seq ${seqOf('call.completed')} (the event is recorded; the listener missed it): listener gave up\n`,
    );
  });

  it('shows what a failing listener says with its control characters escaped, never as terminal sequences', async () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const started = await startTestKernel('tools:\n  hi: {type: cli, command: echo, args: [hi]}\n', [quoting]);
    kernel = started.kernel;
    await kernel.pipeline.call({ tool: 'hi', params: {}, iface: 'cli' });
    await vi.waitFor(() => expect(written.join('')).toContain('cannot read'));
    const warning = written.find((line) => line.includes('cannot read'))!;
    expect(warning).toContain('cannot read \\x1b]0;owned\\x07 \\u202eevil');
    expect(warning).not.toMatch(/[\x1b\x07\u202e]/);
  });
});
