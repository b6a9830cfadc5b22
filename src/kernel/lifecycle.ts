import { messageOf } from './base/errors.js';

/**
 * Kernel phases, in order. Boot runs Discover → Register → Init → Ready; `stop()` moves to
 * Stopping and runs every stop hook in reverse registration order, then Stopped.
 *
 *   Discover ─► Register ─► Init ─► Ready ─► Stopping ─► Stopped
 *   (find config,  (plugins     (plugins'   (calls)   (hooks in
 *    plugins)       declare)     init runs)            reverse)
 */
export enum KernelPhase {
  Discover = 'discover',
  Register = 'register',
  Init = 'init',
  Ready = 'ready',
  Stopping = 'stopping',
  Stopped = 'stopped',
}

export type StopHook = () => Promise<void> | void;

/** Tracks the phase and runs stop hooks once, in reverse, collecting (not throwing) their failures. */
export class Lifecycle {
  phase = KernelPhase.Discover;
  private readonly hooks: { name: string; run: StopHook }[] = [];
  private stopping?: Promise<string[]>;

  enter(phase: KernelPhase): void {
    this.phase = phase;
  }

  onStop(name: string, run: StopHook): void {
    this.hooks.push({ name, run });
  }

  /** Idempotent: a second call waits for the first. Resolves with the failures, if any. */
  stop(): Promise<string[]> {
    this.stopping ??= this.runStop();
    return this.stopping;
  }

  private async runStop(): Promise<string[]> {
    this.phase = KernelPhase.Stopping;
    const failures: string[] = [];
    for (const hook of [...this.hooks].reverse()) {
      try {
        await hook.run();
      } catch (error) {
        failures.push(`${hook.name}: ${messageOf(error)}`);
      }
    }
    this.phase = KernelPhase.Stopped;
    return failures;
  }
}
