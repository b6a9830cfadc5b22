import { isErrorCode, isPluginErrorCode, type ErrorCode } from './codes.js';
import { FactorlyError, messageOf } from './factorly-error.js';

/**
 * A thrown value as a message can carry it to another thread or process: structured clone and JSON
 * keep no class, so the code travels beside the message.
 */
export interface CrossedError {
  error: string;
  code?: string;
}

export function crossing(error: unknown): CrossedError {
  return { error: messageOf(error), ...(FactorlyError.isInstance(error) ? { code: error.code } : {}) };
}

/**
 * The error a crossed one stands for, on this side: its own code when it had one, else `otherwise`
 * (what a failure without a code means where it crossed). `context` goes before the message.
 */
export function uncrossed(crossed: Partial<CrossedError>, otherwise: ErrorCode, context = ''): FactorlyError {
  const { code } = crossed;
  const known = code !== undefined && (isErrorCode(code) || isPluginErrorCode(code)) ? code : otherwise;
  return new FactorlyError(known, `${context}${crossed.error ?? 'no reason given'}`);
}
