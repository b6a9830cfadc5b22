import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { exited } from '../../src/cli/log-guard.js';

// The guard around `call` and `logs …` waits for its child to exit and for what the child wrote to
// stderr; a grandchild still holding the pipe is waited for a grace period at most.

const GRACE_MS = 200;

afterEach(() => {
  vi.useRealTimers();
});

function child(script: string) {
  return spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
}

describe('the log guard waiting for its child', () => {
  it('resolves once the child has exited and its stderr has ended, without waiting for the grace', async () => {
    // With the timers held, only the end of the pipe can settle the wait: an end that came before
    // the exit event must have been heard (it often comes first).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const running = child("process.stderr.write('last words\\n'); process.exitCode = 3");
    const heard: string[] = [];
    running.stderr.on('data', (chunk: Buffer) => heard.push(chunk.toString()));
    expect(await exited(running, GRACE_MS)).toEqual([3, null]);
    expect(heard.join('')).toBe('last words\n');
  });

  it('passes on the signal that ended the child', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const running = child('setInterval(() => {}, 1000)');
    const result = exited(running, GRACE_MS);
    running.kill('SIGTERM');
    expect(await result).toEqual([null, 'SIGTERM']);
  });

  it('waits the grace at most for a process the child started that still holds the pipe', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // The grandchild inherits the child's stderr and outlives it.
    const running = child(
      "const g = require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: ['ignore', 'ignore', 'inherit'], detached: true }); g.unref(); console.error(g.pid)",
    );
    let grandchild = 0;
    running.stderr.on('data', (chunk: Buffer) => (grandchild ||= Number(chunk.toString().trim())));
    let settled = false;
    const result = exited(running, GRACE_MS).then((value) => ((settled = true), value));
    await new Promise((resolve) => running.once('exit', resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(GRACE_MS);
    expect(await result).toEqual([0, null]);
    process.kill(grandchild, 'SIGKILL');
  });
});
