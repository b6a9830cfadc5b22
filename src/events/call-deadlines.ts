import { setTimeout as delay } from 'node:timers/promises';
import { FactorlyError, messageOf } from '../base/errors.js';
import type { NewEvent } from './envelope.js';
import { endsCall } from './call-events.js';

/** Calls remembered at most (the oldest are forgotten: a call that never ended here gets a new budget). */
const KEPT = 10_000;

const callOf = (event: NewEvent): string | undefined => {
  const callId = (event.data as { callId?: unknown } | undefined)?.callId;
  return typeof callId === 'string' ? callId : undefined;
};

/**
 * One deadline per call: every append a call makes (its request and decisions, its confirmation,
 * its completion) waits on the log out of one budget of `timeoutMs`, however many appends there
 * are. What each call has waited so far is kept until its completion (or interruption) is appended.
 * An append of events of no call (a writer's record, a checkpoint) has a budget of its own.
 */
export class CallDeadlines {
  private readonly waited = new Map<string, number>();

  constructor(private readonly timeoutMs: number) {}

  /** When an append of `events`, asked for at `since`, must give up: when the most-waited of its calls runs out. */
  deadline(events: readonly NewEvent[], since: number): number {
    let spent = 0;
    for (const event of events) {
      const callId = callOf(event);
      if (callId !== undefined) spent = Math.max(spent, this.waited.get(callId) ?? 0);
    }
    return since + this.timeoutMs - spent;
  }

  /** The append asked for at `since` is over (stored or not): its wait counts for each of its calls; an ended call is forgotten. */
  settle(events: readonly NewEvent[], since: number, now = Date.now()): void {
    const calls = new Set<string>();
    const ended = new Set<string>();
    for (const event of events) {
      const callId = callOf(event);
      if (callId === undefined) continue;
      calls.add(callId);
      if (endsCall(event.type)) ended.add(callId);
    }
    for (const callId of calls) {
      const spent = (this.waited.get(callId) ?? 0) + (now - since);
      this.waited.delete(callId);
      if (!ended.has(callId)) this.waited.set(callId, spent);
    }
    while (this.waited.size > KEPT) this.waited.delete(this.waited.keys().next().value!);
  }

  /** Why a call cannot `what` (`append to the event log …`): it has waited on the log for its whole timeout (`leftMs` were left for this). */
  late(what: string, leftMs: number): FactorlyError {
    return new FactorlyError(
      'LOG_WRITE_FAILED',
      `cannot ${what}: the call has waited on it for its whole timeout (${seconds(this.timeoutMs)}s in all, ${seconds(leftMs)}s of it left for this append): is the stream reachable, with a quorum of its servers?`,
    );
  }

  /** Why the log could not `what` (`read the event log …`) in time: `error`, unless it is already the log's own verdict. */
  unanswered(what: string, error: unknown): FactorlyError {
    if (FactorlyError.isInstance(error)) return error;
    return new FactorlyError(
      'LOG_WRITE_FAILED',
      `cannot ${what}: ${messageOf(error)} (no answer within ${seconds(this.timeoutMs)}s: is the stream reachable, with a quorum of its servers?)`,
      { cause: error },
    );
  }
}

/** Between two tries of something the stream did not answer (a leader being elected, a reconnect). */
export const RETRY_MS = 200;

/**
 * `work`, tried again while it fails for `timeoutMs`: a stream (or the store beside it) that does not
 * answer for a while (an election, a reconnect). Its own verdict (a `FactorlyError`) is final.
 */
export async function retried<T>(work: () => Promise<T>, timeoutMs: number): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    try {
      return await work();
    } catch (error) {
      if (FactorlyError.isInstance(error) || Date.now() >= deadline) throw error;
      await delay(RETRY_MS);
    }
  }
}

const seconds = (ms: number): number => Math.round(Math.max(ms, 0) / 100) / 10;

/** `promise`, or a rejection (`late()`) once `deadline` has passed. */
export function within<T>(promise: Promise<T>, deadline: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), Math.max(deadline - Date.now(), 0));
    timer.unref();
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/**
 * Runs `work` once `queue` (the appends before it) is done, unless `deadline` passes first: then it
 * never runs, and the caller hears `late()` at the deadline rather than after the queue. Once it
 * has started, it ends by itself (it keeps the deadline on its own). `done` is when it is over, for
 * the next one to queue behind.
 */
export function queuedUntil<T>(
  queue: Promise<unknown>,
  deadline: number,
  late: () => Error,
  work: () => Promise<T>,
): { result: Promise<T>; done: Promise<unknown> } {
  let started = false;
  let expired = false;
  let timer: NodeJS.Timeout | undefined;
  const done = queue.then(() => {
    clearTimeout(timer);
    if (expired) throw late();
    started = true;
    return work();
  });
  const result = new Promise<T>((resolve, reject) => {
    timer = setTimeout(
      () => {
        if (started) return;
        expired = true;
        reject(late());
      },
      Math.max(deadline - Date.now(), 0),
    );
    done.then(resolve, reject);
  });
  return { result, done };
}
