import type { JsonValue, SandboxBudget, SandboxRunResult } from 'factorly';
import type { GuestOutcome } from './protocol.js';

/** The run's result from what its engine process reported. */
export function toResult(outcome: GuestOutcome & { peak?: number }, durationMs: number): SandboxRunResult {
  const usage = { durationMs, hostCalls: outcome.hostCalls, memoryBytes: outcome.peak };
  if ('exitCode' in outcome)
    return { exitCode: outcome.exitCode, error: outcome.error, logs: outcome.logs ?? [], usage };
  const guest = guestOutcome(outcome.guestJson);
  if (!guest)
    return {
      exitCode: 2,
      error: "the script tampered with the sandbox's outcome (it was not the shape the prelude writes)",
      logs: [],
      usage,
    };
  if (guest.ok) return { exitCode: 0, value: guest.value ?? null, logs: guest.logs, usage };
  return { exitCode: 1, error: guest.message ?? 'the script failed', logs: guest.logs, usage };
}

/**
 * The prelude's outcome, checked: a script can reach the intrinsics the prelude serialises with
 * (an `Object.prototype.toJSON` on QuickJS), so what arrives is the guest's word and must have the
 * prelude's shape before the host uses it.
 */
function guestOutcome(json: string): { ok: boolean; value?: JsonValue; message?: string; logs: string[] } | undefined {
  let guest: unknown;
  try {
    guest = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (typeof guest !== 'object' || guest === null) return undefined;
  const { ok, message, logs } = guest as Record<string, unknown>;
  if (typeof ok !== 'boolean' || (message !== undefined && typeof message !== 'string')) return undefined;
  if (!Array.isArray(logs) || !logs.every((line) => typeof line === 'string')) return undefined;
  return guest as { ok: boolean; value?: JsonValue; message?: string; logs: string[] };
}

export function crashMessage(engine: string, reason: string, budget: SandboxBudget): string {
  if (reason === 'out of memory') return `out of memory: the script used more than ${mib(budget.memoryBytes)} MiB`;
  return `the ${engine} engine crashed (${reason}); the run was stopped`;
}

export function mib(bytes: number): number {
  return Math.round((bytes / 1024 / 1024) * 10) / 10;
}
