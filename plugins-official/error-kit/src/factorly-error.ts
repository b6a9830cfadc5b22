import { codeInfo, type ErrorCode, type PluginErrorCode } from './codes.js';

/**
 * Every error factorly raises on purpose. `code` is stable (scripts and tests match on it);
 * `message` is written for the person who must act on it. The brand lets `isInstance` work across
 * duplicated copies of this package (a plugin installed with its own copy of the SDK).
 */
const BRAND = Symbol.for('factorly:error');

export class FactorlyError extends Error {
  readonly [BRAND] = true;
  readonly code: ErrorCode | PluginErrorCode;
  readonly data?: Record<string, unknown>;

  constructor(
    code: ErrorCode | PluginErrorCode,
    message: string,
    options: { cause?: unknown; data?: Record<string, unknown> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'FactorlyError';
    this.code = code;
    this.data = options.data;
  }

  /** Process exit code for this error when it ends a CLI command. */
  get exitCode(): number {
    return codeInfo(this.code).exit;
  }

  static isInstance(value: unknown): value is FactorlyError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

/**
 * A broken invariant: code that cannot be reached unless factorly itself has a bug. Named apart from
 * the errors a user can cause, so a reader knows nothing they did leads here.
 */
export function internalError(message: string, options: { cause?: unknown } = {}): FactorlyError {
  return new FactorlyError('INTERNAL', `internal error (a bug in factorly): ${message}`, options);
}

/** Message of any thrown value, for places that must report without crashing. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
