import { FactorlyError } from '../base/errors.js';
import { stackless } from '../base/stackless.js';
import type { CallerRun, SecretBackend } from '../contracts/extensions.js';
import type { CallTreeLink } from '../contracts/gateway.js';
import type { SecretScope, ToolDefinition } from '../contracts/tool.js';
import { CallSecretScope } from './secret-scope.js';
import type { KeyedRegistry } from './registries.js';

/**
 * How long a provider gets to return once its call was stopped (deadline or cancel) before the call
 * is recorded without it. Longer than the official providers' own stop sequences (a command's
 * SIGTERM → SIGKILL grace, a script engine's kill), so it only cuts a provider that ignores its signal.
 */
export const STOP_GRACE_MS = 3_000;

/** Why a call was stopped from outside: its caller cancelled it, or the call tree it is part of stopped. */
export class CallCancelled extends Error {
  override readonly name = 'AbortError';
}

/** A caller's reason when it gave one in words (or passed one on as the cause), else nothing. */
function wordsOf(signal: AbortSignal): { cause: string } | undefined {
  const reason: unknown = signal.reason;
  const words = typeof reason === 'string' ? reason : (reason as { cause?: unknown } | undefined)?.cause;
  return typeof words === 'string' ? { cause: words } : undefined;
}

/** What every call of one tree shares. */
interface Tree {
  readonly rootId: string;
  readonly backends: KeyedRegistry<SecretBackend>;
  /** Secrets providers resolved outside any call: scrubbed from every tree. */
  readonly connectionSecrets?: SecretScope;
  /** Every value any call of the tree resolved, by reference. */
  readonly values: Map<string, string>;
  /** A call of the tree has learnt what every tool it may call could resolve (see CallPipeline.reachableBy). */
  learntReachable?: boolean;
}

/** The contexts the kernel issued: a `parent` that is not one of them was built or copied, and is refused. */
const issued = new WeakSet<object>();

/**
 * One call's place in its call tree (docs/architecture.md, "One call through the pipeline"). The
 * pipeline makes a root for a call from outside and a child for an inner call; nothing else makes one. A child
 * shares the root's secret values (so every value resolved anywhere in the tree is scrubbed from every
 * event and output of the tree), stops when its parent stops (the root's deadline and its caller's
 * cancellation reach every depth, and nothing starts afterwards), and counts against the budget of
 * every call above it.
 */
export class CallContext implements CallTreeLink {
  readonly signal: AbortSignal;
  readonly secrets: CallSecretScope;
  tool?: ToolDefinition;
  private readonly controller = new AbortController();
  private readonly running = new Set<Promise<unknown>>();
  /** Calls started under this one, at any depth. */
  private started = 0;
  /** This call's number in each ancestor's count, nearest first. */
  private readonly places: number[] = [];
  private deadline?: NodeJS.Timeout;
  /** When the call's own deadline passes (performance.now()), and how long it was, once armed. */
  private deadlineAt?: number;
  private timeoutMs?: number;
  private detach?: () => void;

  private constructor(
    readonly callId: string,
    readonly parent: CallContext | undefined,
    private readonly tree: Tree,
  ) {
    this.signal = this.controller.signal;
    this.secrets = new CallSecretScope(tree.backends, tree.values);
    for (let above = parent; above; above = above.parent) this.places.push(above.started++);
    issued.add(this);
  }

  /** A call from outside: the root of a new tree, stopped when `caller` aborts. */
  static root(
    callId: string,
    parts: { backends: KeyedRegistry<SecretBackend>; connectionSecrets?: SecretScope },
    caller?: AbortSignal,
  ): CallContext {
    const context = new CallContext(callId, undefined, { rootId: callId, ...parts, values: new Map() });
    // The caller's own words (an MCP agent's cancel reason) ride along as the cause, for a provider to relay.
    if (caller) context.follow(caller, () => new CallCancelled('the caller cancelled the call', wordsOf(caller)));
    return context;
  }

  /** The context `link` stands for, if the kernel issued it. */
  static adopt(link: CallTreeLink): CallContext {
    if (!issued.has(link)) {
      throw new FactorlyError(
        'CALL_CONTEXT',
        'an inner call must pass the calling ToolCall.context as its parent, as the kernel issued it',
      );
    }
    return link as CallContext;
  }

  get rootId(): string {
    return this.tree.rootId;
  }

  /** The tree these calls share, for what is learnt once per tree. */
  get shared(): Pick<Tree, 'learntReachable'> {
    return this.tree;
  }

  /** An inner call made by this one; it stops when this one does (at once, if this one already stopped). */
  child(callId: string): CallContext {
    const child = new CallContext(callId, this, this.tree);
    child.follow(
      this.signal,
      () =>
        new CallCancelled(
          `stopped with the call that made it ("${this.tool?.name ?? this.callId}": ${this.stopReason()})`,
          wordsOf(this.signal),
        ),
    );
    return child;
  }

  /** Arms the call's own deadline, once its tool is known. */
  start(tool: ToolDefinition, timeoutMs: number): void {
    this.tool = tool;
    if (this.signal.aborted) return;
    this.deadlineAt = performance.now() + timeoutMs;
    this.timeoutMs = timeoutMs;
    this.deadline = setTimeout(() => this.expire(), timeoutMs);
    this.deadline.unref?.();
  }

  /**
   * Whether this call's tree has stopped. A deadline that has passed counts even before its timer
   * ran: while the host is busy (one big inner call's steps) timers wait, and no call may start its
   * tool in a tree whose time is up. Expiring a call above this one stops this one with it.
   */
  get stopped(): boolean {
    this.expireIfDue();
    for (let above = this.parent; above && !this.signal.aborted; above = above.parent) above.expireIfDue();
    return this.signal.aborted;
  }

  private expireIfDue(): void {
    if (this.deadlineAt !== undefined && !this.signal.aborted && performance.now() >= this.deadlineAt) this.expire();
  }

  private expire(): void {
    this.controller.abort(new DOMException(`timed out after ${this.timeoutMs} ms`, 'TimeoutError'));
  }

  /** Stopped from outside (not by its own deadline): recorded as `cancelled`. */
  get cancelled(): boolean {
    return this.signal.aborted && this.signal.reason instanceof CallCancelled;
  }

  /**
   * Stopped by its own deadline. A provider's own watchdog on the same timeout may answer a moment
   * before the deadline's timer runs (timers may fire up to a millisecond early): that is a timeout too.
   */
  get timedOut(): boolean {
    if (this.signal.aborted) return (this.signal.reason as { name?: unknown } | undefined)?.name === 'TimeoutError';
    return this.deadlineAt !== undefined && performance.now() >= this.deadlineAt - 1;
  }

  stopReason(): string {
    const reason: unknown = this.signal.reason;
    return reason instanceof Error ? reason.message : String(reason);
  }

  /** Every secret value to scrub from this tree's events and outputs: the tree's own and the connection secrets. */
  scrubList(): ReadonlyMap<string, string> {
    const connectionSecrets = this.tree.connectionSecrets?.resolved();
    return connectionSecrets?.size ? new Map([...connectionSecrets, ...this.tree.values]) : this.tree.values;
  }

  /** The runs above this call, nearest first, with how many calls each had started before this one. */
  callers(): CallerRun[] {
    const out: CallerRun[] = [];
    let index = 0;
    for (let above = this.parent; above; above = above.parent) {
      out.push({ callId: above.callId, tool: above.tool!, innerCalls: this.places[index++] });
    }
    return out;
  }

  /** Remembers an inner call in flight, so this call does not complete before it. */
  track(work: Promise<unknown>): void {
    this.running.add(work);
    void work.finally(() => this.running.delete(work)).catch(() => undefined);
  }

  /**
   * `work` (a provider executing), or once the call has been stopped and `STOP_GRACE_MS` passed
   * without it returning, what `stopped()` makes: a stopped call is recorded even when its provider hangs.
   */
  bounded<T>(work: Promise<T>, stopped: () => T): Promise<T> {
    let grace: NodeJS.Timeout | undefined;
    const onStop = (): void => {
      grace = setTimeout(() => resolveStopped(stopped()), STOP_GRACE_MS);
    };
    let resolveStopped: (value: T) => void = () => undefined;
    const cut = new Promise<T>((resolve) => {
      resolveStopped = resolve;
    });
    if (this.signal.aborted) onStop();
    else this.signal.addEventListener('abort', onStop, { once: true });
    return Promise.race([work, cut]).finally(() => {
      clearTimeout(grace);
      this.signal.removeEventListener('abort', onStop);
    });
  }

  /**
   * Ends the call's part of the tree: inner calls still running (a script that did not wait for them)
   * are stopped, and waited for, within the grace, so each records its completion before this call does.
   */
  async settle(): Promise<void> {
    clearTimeout(this.deadline);
    if (this.running.size === 0) return;
    if (!this.signal.aborted)
      this.controller.abort(new CallCancelled(`"${this.tool?.name ?? this.callId}" ended before it`));
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS)));
    await Promise.race([Promise.allSettled([...this.running]), waited]);
    clearTimeout(timer);
  }

  /**
   * Once the call has completed: releases its timer and its link to the parent's signal, and stops
   * its context for good, so an inner call made later through it (a provider keeping it past its
   * call) is recorded as cancelled and never runs.
   */
  close(): void {
    clearTimeout(this.deadline);
    this.detach?.();
    if (!this.signal.aborted)
      this.controller.abort(stackless(() => new CallCancelled(`"${this.tool?.name ?? this.callId}" has ended`)));
  }

  private follow(signal: AbortSignal, reason: () => CallCancelled): void {
    const stop = (): void => this.controller.abort(reason());
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    this.detach = () => signal.removeEventListener('abort', stop);
  }
}
