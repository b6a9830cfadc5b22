import { FactorlyError, uncrossed } from '@factorly/error-kit';
import type { SandboxBudget } from 'factorly';
import { BUFFER_RESIZERS } from './prelude.js';
import {
  MAX_HOST_CALL_CHARS,
  type ChildMessage,
  type EngineOutcome,
  type ParentMessage,
  type ReturnMessage,
} from './protocol.js';

export type { EngineOutcome } from './protocol.js';
export { BUFFER_RESIZERS, GUEST_PRELUDE } from './prelude.js';

export interface GuestJob {
  /** The prepared script followed by `RUN_EPILOGUE`. */
  source: string;
  paramsJson: string;
  budget: SandboxBudget;
}

/** The engine's way out to the host, from inside the child process. */
export interface GuestBridge {
  call(fn: string, argsJson: string): Promise<string>;
  /** Host calls sent and not yet answered. */
  readonly pending: number;
  readonly calls: number;
}

export type GuestRunner = (job: GuestJob, bridge: GuestBridge) => Promise<EngineOutcome>;

/**
 * The child-process side of the pool: waits for `run` messages, runs them one at a time with the
 * engine's runner, relays host calls to the parent. `init` runs once before `ready` is sent (load
 * a WASM module, lock down intrinsics).
 */
export async function serveRuns(init: () => Promise<GuestRunner>): Promise<void> {
  const send = (message: ChildMessage): void => void process.send!(message);
  // A guest's floating rejection must not take the child down with Node's default handler.
  process.on('unhandledRejection', () => {});
  const runner = await init();
  const waiting = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>();
  let nextCall = 0;
  process.on('message', (message: ParentMessage) => {
    if (message.t === 'ret') return settle(waiting, message);
    const bridge = {
      calls: 0,
      get pending() {
        return waiting.size;
      },
      call(fn: string, args: string): Promise<string> {
        bridge.calls += 1;
        if (args.length > MAX_HOST_CALL_CHARS)
          return Promise.reject(new FactorlyError('PARAMS_INVALID', tooLarge(args.length)));
        const call = (nextCall += 1);
        send({ t: 'call', id: message.id, call, fn, args });
        return new Promise((resolve, reject) => waiting.set(call, { resolve, reject }));
      },
    };
    void runner({ source: message.source, paramsJson: message.paramsJson, budget: message.budget }, bridge)
      .catch((error: unknown): EngineOutcome => ({
        exitCode: 2,
        error: `engine failure: ${String(error)}`,
        retire: true,
      }))
      .then((outcome) => {
        waiting.clear();
        send({ t: 'done', id: message.id, outcome: { ...outcome, hostCalls: bridge.calls } });
      });
  });
  send({ t: 'ready' });
}

function tooLarge(chars: number): string {
  return `the arguments of this host call are ${chars} characters of JSON; the limit is ${MAX_HOST_CALL_CHARS}`;
}

function settle(
  waiting: Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>,
  message: ReturnMessage,
): void {
  const entry = waiting.get(message.call);
  if (!entry) return;
  waiting.delete(message.call);
  if (message.ok) entry.resolve(message.value ?? 'null');
  else entry.reject(uncrossed(message, 'INTERNAL'));
}

/**
 * Removes the buffer resizers from an engine's own intrinsics, for engines whose intrinsics are
 * frozen before the prelude runs (SES hardens them at lockdown: call this before `lockdown()`).
 */
export function removeBufferResizers(global: Record<string, unknown>): void {
  for (const [ctor, names] of BUFFER_RESIZERS) {
    const prototype = (global[ctor] as { prototype?: Record<string, unknown> } | undefined)?.prototype;
    for (const name of names) if (prototype) delete prototype[name];
  }
}
