import { FactorlyError } from '@factorly/error-kit';
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { factorlyImportFlags } from './factorly-import-flags.js';
import type { ChildMessage, ParentMessage } from './protocol.js';

export interface ChildOptions {
  script: string;
  /** Node flags for the child (heap limits); never inherited from the host. */
  execArgv: string[];
}

/**
 * One engine process. It starts with an empty environment (no secrets, no tokens), talks to the
 * host only over the IPC channel, and can always be SIGKILLed, whatever the guest is doing.
 * Idle children are unreferenced so they never keep the host process alive.
 */
export class SupervisedChild {
  readonly process: ChildProcess;
  readonly ready: Promise<void>;
  private stderrTail = '';
  private exited = false;
  private exitListeners: ((reason: string) => void)[] = [];
  onMessage: (message: ChildMessage) => void = () => {};

  constructor(options: ChildOptions) {
    this.process = fork(options.script, [], {
      execArgv: [...factorlyImportFlags(options.script), ...options.execArgv],
      env: {},
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
    this.process.stderr!.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-4096);
    });
    this.ready = new Promise((resolve, reject) => {
      this.process.once('error', reject);
      this.process.on('message', (message: ChildMessage) =>
        message.t === 'ready' ? resolve() : this.onMessage(message),
      );
      this.process.once('exit', (code, signal) => {
        this.exited = true;
        const reason = this.describeExit(code, signal);
        reject(new FactorlyError('ENGINE_FAILED', `the engine process did not start: ${reason}`));
        for (const listener of this.exitListeners.splice(0)) listener(reason);
      });
    });
    this.ready.catch(() => {});
  }

  get alive(): boolean {
    return !this.exited;
  }

  send(message: ParentMessage): void {
    if (!this.exited) this.process.send(message);
  }

  /** Called once with a readable reason when the process ends for any reason. */
  onExit(listener: (reason: string) => void): void {
    if (this.exited) listener('the engine process had already exited');
    else this.exitListeners.push(listener);
  }

  kill(): void {
    if (!this.exited) this.process.kill('SIGKILL');
  }

  /** Resident memory in bytes, read from /proc (Linux); undefined elsewhere or once gone. */
  rss(): number | undefined {
    try {
      const status = readFileSync(`/proc/${this.process.pid}/status`, 'utf8');
      const match = /VmRSS:\s+(\d+) kB/.exec(status);
      return match ? Number(match[1]) * 1024 : undefined;
    } catch {
      return undefined;
    }
  }

  /** While busy the child keeps the host alive (a CLI call waits for it); idle, it does not. */
  hold(busy: boolean): void {
    const handles = [this.process, this.process.channel, this.process.stderr] as (
      { ref?(): void; unref?(): void } | null | undefined
    )[];
    for (const handle of handles) {
      if (busy) handle?.ref?.();
      else handle?.unref?.();
    }
  }

  private describeExit(code: number | null, signal: NodeJS.Signals | null): string {
    if (/heap out of memory|Out of memory|OOM/i.test(this.stderrTail)) return 'out of memory';
    if (signal) return `killed by ${signal}`;
    return `exited with code ${code}`;
  }
}
