import { FactorlyError, messageOf } from '../base/errors.js';

/**
 * Kernel phases, in order, each entered when it begins (README "Plugins", Lifecycle):
 *
 *   Discover ─► Register ─► Init ─► Ready ─► Stopping ─► Stopped
 *   (config found,  (each plugin's  (each plugin's  (calls)   (stop hooks,   (log closed)
 *    plugins         register: its   init, in                  reverse start
 *    imported)       keys, tokens)   dependency order)         order)
 *
 * What needs a phase asserts it (`require`): a call before Ready, a stop hook registered once stopping
 * began, or the log used after stop fail with `LIFECYCLE`.
 */
export enum KernelPhase {
  Discover = 'discover',
  Register = 'register',
  Init = 'init',
  Ready = 'ready',
  Stopping = 'stopping',
  Stopped = 'stopped',
}

const ORDER = Object.values(KernelPhase);

export type StopHook = () => Promise<void> | void;

/**
 * Tracks the phase and runs stop hooks once, in reverse registration order (which is start order:
 * the log's hook first, then each plugin's and what it contributed, in init order), collecting
 * (not throwing) their failures.
 */
export class Lifecycle {
  private current = KernelPhase.Discover;
  private readonly hooks: { name: string; run: StopHook }[] = [];
  private stopping?: Promise<string[]>;

  get phase(): KernelPhase {
    return this.current;
  }

  /** Enters the next boot phase; any other step (skipping one, going back) is a bug in the caller. `stop` enters the last two. */
  enter(phase: KernelPhase): void {
    const next = ORDER[ORDER.indexOf(this.current) + 1];
    if (phase !== next || phase === KernelPhase.Stopping || phase === KernelPhase.Stopped)
      throw new FactorlyError('LIFECYCLE', `the kernel cannot enter ${phase} from ${this.current}`);
    this.current = phase;
  }

  /** Throws `LIFECYCLE` unless the kernel is between `from` and `until` (inclusive): `what` cannot happen now. */
  require(what: string, from: KernelPhase, until = KernelPhase.Stopping): void {
    const at = ORDER.indexOf(this.current);
    if (at >= ORDER.indexOf(from) && at <= ORDER.indexOf(until)) return;
    const when = at < ORDER.indexOf(from) ? `before the kernel is ${from}` : `once the kernel is ${this.current}`;
    throw new FactorlyError('LIFECYCLE', `${what} is not possible ${when}`);
  }

  onStop(name: string, run: StopHook): void {
    this.require(`registering a stop hook (${name})`, KernelPhase.Discover, KernelPhase.Ready);
    this.hooks.push({ name, run });
  }

  /** Idempotent: a second call waits for the first. Resolves with the failures, if any. */
  stop(): Promise<string[]> {
    this.stopping ??= this.runStop();
    return this.stopping;
  }

  private async runStop(): Promise<string[]> {
    this.current = KernelPhase.Stopping;
    const failures: string[] = [];
    for (const hook of [...this.hooks].reverse()) {
      try {
        await hook.run();
      } catch (error) {
        failures.push(`${hook.name}: ${messageOf(error)}`);
      }
    }
    this.current = KernelPhase.Stopped;
    return failures;
  }
}
