import { crossing } from '@factorly/error-kit';
import type { JsonValue, SandboxBudget, SandboxHost, SandboxRunResult } from 'factorly';
import { crashMessage, mib, toResult } from './outcome.js';
import { MAX_HOST_CALL_CHARS, type ChildMessage, type GuestOutcome } from './protocol.js';
import { SupervisedChild } from './supervised-child.js';

export interface PoolOptions {
  /** Engine name, for messages. */
  name: string;
  /** The child entry (a module calling `serveRuns`). */
  script: string;
  execArgv?: string[];
  /** Time the engine gets past the deadline to stop the run itself before it is killed. */
  graceMs?: number;
  /** Memory above the child's resident size at the start of a run that the engine itself may need. */
  engineSlackBytes?: number;
  /** Children running at once; further runs wait. */
  maxChildren?: number;
  /** Children at most, nested runs included: a nested run never waits, past this it is refused. */
  maxNestedChildren?: number;
  /** Idle children kept warm once the pool has been used. */
  spare?: number;
}

const WATCH_INTERVAL_MS = 20;

/**
 * Runs scripts in child processes, one run per child at a time, so a run that must be stopped
 * takes nothing else down. A watchdog stops a run that passes its deadline (plus grace) or whose
 * process grows past its memory budget, by SIGKILL: this works even when the guest is stuck in a
 * native call that no in-engine interrupt reaches. A killed child is replaced; warm spares hide
 * the start-up cost.
 */
export class ProcessPool {
  private readonly idle: SupervisedChild[] = [];
  private readonly waiters: ((child: SupervisedChild) => void)[] = [];
  private count = 0;
  /** Spares started and not ready yet. */
  private readonly starting: SupervisedChild[] = [];
  private nextRun = 0;
  private stopped = false;
  private readonly options: Required<PoolOptions>;

  constructor(options: PoolOptions) {
    const maxChildren = options.maxChildren ?? 8;
    this.options = {
      execArgv: [],
      graceMs: 250,
      engineSlackBytes: 32 * 1024 * 1024,
      maxChildren,
      maxNestedChildren: maxChildren * 4,
      spare: 1,
      ...options,
    };
  }

  async run(source: string, params: JsonValue, host: SandboxHost, budget: SandboxBudget): Promise<SandboxRunResult> {
    const started = performance.now();
    const child = await this.acquire(budget.nested === true);
    if (!child) {
      const error = `the ${this.options.name} engine already runs ${this.count} scripts; this nested script was refused rather than wait for one to end (its caller holds one)`;
      return { exitCode: 2, error, logs: [], usage: { durationMs: 0, hostCalls: 0 } };
    }
    const outcome = await this.supervise(child, source, params, host, budget);
    const durationMs = Math.round((performance.now() - started) * 100) / 100;
    this.release(child, outcome.retire === true);
    return toResult(outcome, durationMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const child of this.idle.splice(0)) child.kill();
  }

  private supervise(
    child: SupervisedChild,
    source: string,
    params: JsonValue,
    host: SandboxHost,
    budget: SandboxBudget,
  ): Promise<GuestOutcome & { peak?: number }> {
    const id = (this.nextRun += 1);
    const baseline = child.rss();
    const memoryLimit =
      baseline === undefined ? undefined : baseline + budget.memoryBytes + this.options.engineSlackBytes;
    let peak = 0;
    let hostCalls = 0;
    // A signal cannot cross to the engine process: it stays here, where the run can be stopped.
    const { signal, ...limits } = budget;
    return new Promise((resolve) => {
      let finished = false;
      const finish = (outcome: GuestOutcome): void => {
        if (finished) return;
        finished = true;
        clearInterval(watch);
        clearTimeout(deadline);
        signal?.removeEventListener('abort', cancel);
        child.onMessage = () => {};
        resolve({ ...outcome, peak: baseline === undefined ? undefined : Math.max(0, peak - baseline) });
      };
      const stop = (error: string): void => {
        child.kill();
        finish({ exitCode: 2, error, hostCalls, retire: true });
      };
      const deadline = setTimeout(
        () => stop(`timed out after ${budget.timeoutMs} ms`),
        budget.timeoutMs + this.options.graceMs,
      );
      // Past its deadline (the caller's signal, or the run's own clock) a run gets no more answers from the
      // host: what it waits for was stopped with it, and a script must not turn those stopped calls into
      // a result before the engine ends the run.
      const started = performance.now();
      const pastDeadline = (): boolean => signal?.aborted === true || performance.now() - started >= budget.timeoutMs;
      // The caller's deadline is this run's own (reported as a timeout above); any other abort is a cancel.
      const cancel = (): void => {
        if ((signal?.reason as Error | undefined)?.name !== 'TimeoutError') stop('the run was cancelled');
      };
      signal?.addEventListener('abort', cancel, { once: true });
      const watch = setInterval(() => {
        const rss = child.rss();
        if (rss === undefined) return;
        peak = Math.max(peak, rss);
        if (memoryLimit !== undefined && rss > memoryLimit)
          stop(`out of memory: the script used more than ${mib(budget.memoryBytes)} MiB`);
      }, WATCH_INTERVAL_MS);
      child.onExit((reason) =>
        finish({ exitCode: 2, error: crashMessage(this.options.name, reason, budget), hostCalls, retire: true }),
      );
      child.onMessage = (message: ChildMessage) => {
        if (message.t === 'done' && message.id === id) return finish(message.outcome);
        if (message.t !== 'call' || message.id !== id) return;
        hostCalls += 1;
        void answer(host, message.fn, message.args).then((reply) => {
          if (!finished && !pastDeadline()) child.send({ t: 'ret', id, call: message.call, ...reply });
        });
      };
      child.send({ t: 'run', id, source, paramsJson: JSON.stringify(params), budget: limits });
      if (signal?.aborted) cancel();
    });
  }

  /**
   * A nested run (its caller holds a child and waits for it) never queues behind `maxChildren`:
   * it gets a child up to `maxNestedChildren`, or none (undefined) past that, so no tree of scripts
   * can wait on itself.
   */
  private async acquire(nested: boolean): Promise<SupervisedChild | undefined> {
    // Most recently used first: its caches are warm (measured faster than rotating through spares).
    const ready = this.idle.pop();
    if (ready) {
      ready.hold(true);
      this.warm();
      return ready;
    }
    // A spare still starting is nearer to ready than a child started now: the run takes it.
    const coming = this.starting.shift();
    if (coming) {
      coming.hold(true);
      const started = await coming.ready.then(
        () => true,
        () => false, // it did not start: the run starts a child of its own below
      );
      if (started) {
        this.warm();
        return coming;
      }
    }
    if (this.count >= this.options.maxChildren && !nested)
      return new Promise((resolve) => this.waiters.push(resolve)).then((child) => child as SupervisedChild);
    if (this.count >= this.options.maxNestedChildren) return undefined;
    const child = this.spawn();
    child.hold(true);
    await child.ready;
    this.warm();
    return child;
  }

  private release(child: SupervisedChild, retire: boolean): void {
    // A child started past the cap for a nested run is not kept.
    if (retire || !child.alive || this.stopped || this.count > this.options.maxChildren) {
      child.kill();
      if (this.waiters.length > 0 && !this.stopped) this.startSpare();
      return;
    }
    this.offer(child);
  }

  /** A ready child goes to the longest waiting run, or back to the idle list. */
  private offer(child: SupervisedChild): void {
    if (this.stopped) return child.kill();
    const waiter = this.waiters.shift();
    if (waiter) {
      child.hold(true);
      return waiter(child);
    }
    child.hold(false);
    this.idle.push(child);
  }

  /**
   * Keeps `spare` started children waiting, so the next run does not pay process start-up; called
   * after each run, and ahead of a run expected soon (`ProcessEngine.warm`).
   */
  warm(): void {
    while (
      !this.stopped &&
      this.idle.length + this.starting.length < this.options.spare &&
      this.count < this.options.maxChildren
    )
      this.startSpare();
  }

  private startSpare(): void {
    const child = this.spawn();
    child.hold(this.waiters.length > 0);
    this.starting.push(child);
    void child.ready.then(
      () => {
        if (this.claimStarting(child)) this.offer(child);
      },
      () => void this.claimStarting(child),
    );
  }

  /** Takes a starting spare off the list; false when a run took it meanwhile (see `acquire`). */
  private claimStarting(child: SupervisedChild): boolean {
    const index = this.starting.indexOf(child);
    if (index < 0) return false;
    this.starting.splice(index, 1);
    return true;
  }

  private spawn(): SupervisedChild {
    const child = new SupervisedChild({ script: this.options.script, execArgv: this.options.execArgv });
    this.count += 1;
    child.onExit(() => {
      this.count -= 1;
      const index = this.idle.indexOf(child);
      if (index >= 0) this.idle.splice(index, 1);
    });
    return child;
  }
}

/** The engine process is checked too: what it sends is treated as the guest's, never trusted. */
async function answer(
  host: SandboxHost,
  fn: unknown,
  args: unknown,
): Promise<{ ok: boolean; value?: string; error?: string; code?: string }> {
  if (typeof fn !== 'string' || typeof args !== 'string')
    return { ok: false, error: 'malformed host call', code: 'PARAMS_INVALID' };
  if (args.length > MAX_HOST_CALL_CHARS)
    return {
      ok: false,
      error: `the arguments of this host call are over ${MAX_HOST_CALL_CHARS} characters of JSON`,
      code: 'PARAMS_INVALID',
    };
  try {
    const value = await host.call(fn, JSON.parse(args) as JsonValue);
    return { ok: true, value: JSON.stringify(value ?? null) };
  } catch (error) {
    return { ok: false, ...crossing(error) };
  }
}
