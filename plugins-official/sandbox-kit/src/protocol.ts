import type { SandboxBudget } from 'factorly';

/**
 * Longest JSON text one host call may carry out of the sandbox (`factorly.call` arguments): a
 * script cannot make the host parse, validate and log an arbitrarily large value. Checked in the
 * engine process (the guest gets a catchable error) and again in the host.
 */
export const MAX_HOST_CALL_CHARS = 8 * 1024 * 1024;

/** What an engine's runner reports at the end of a run; `retire` replaces the process afterwards. */
export type EngineOutcome =
  /** The prelude's outcome JSON: `{ok, value | message, logs}`. */
  | { guestJson: string; retire?: boolean }
  /** The engine stopped the run itself (deadline, memory, a promise that can never settle). */
  | { exitCode: 1 | 2; error: string; logs?: string[]; retire?: boolean };

export type GuestOutcome = EngineOutcome & { hostCalls: number };

export interface RunMessage {
  t: 'run';
  id: number;
  source: string;
  paramsJson: string;
  budget: SandboxBudget;
}

export interface ReturnMessage {
  t: 'ret';
  id: number;
  call: number;
  ok: boolean;
  /** JSON text of the host function's answer. */
  value?: string;
  error?: string;
  /** The factorly code of a host function's failure (see @factorly/error-kit `crossing`). */
  code?: string;
}

export type ParentMessage = RunMessage | ReturnMessage;

export type ChildMessage =
  | { t: 'ready' }
  | { t: 'call'; id: number; call: number; fn: string; args: string }
  | { t: 'done'; id: number; outcome: GuestOutcome };
