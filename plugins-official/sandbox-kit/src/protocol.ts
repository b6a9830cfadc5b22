import type { SandboxBudget } from 'factorly';

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
}

export type ParentMessage = RunMessage | ReturnMessage;

export type ChildMessage =
  | { t: 'ready' }
  | { t: 'call'; id: number; call: number; fn: string; args: string }
  | { t: 'done'; id: number; outcome: GuestOutcome };
