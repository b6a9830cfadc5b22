/**
 * Every error factorly raises on purpose. `code` is stable (scripts and tests match on it);
 * `message` is written for the person who must act on it. The brand lets `isInstance` work across
 * duplicated copies of this package (a plugin installed with its own copy of the SDK).
 */
const BRAND = Symbol.for('factorly:error');

export type ErrorCode =
  | 'CONFIG_NOT_FOUND'
  | 'CONFIG_INVALID'
  | 'TOOL_NOT_FOUND'
  | 'PARAMS_INVALID'
  | 'USAGE'
  | 'PLUGIN_INVALID'
  | 'PLUGIN_API_MISMATCH'
  | 'PLUGIN_DEPENDENCY'
  | 'PLUGIN_INIT_FAILED'
  | 'EXTENSION_CONFLICT'
  | 'LIFECYCLE'
  | 'LOG_CONFLICT'
  | 'LOG_CORRUPT'
  /** The log (or evidence about it: a checkpoint, a key) cannot be read at all (not LMDB, cut short): exit 2, not "tampered". */
  | 'LOG_UNREADABLE'
  /** An append failed (a full disk, an I/O error, a log opened read-only). */
  | 'LOG_WRITE_FAILED'
  | 'LOG_KEY'
  /** An append of an event type neither factorly nor a plugin declared. */
  | 'EVENT_UNKNOWN'
  | 'PROJECTION_CONFLICT'
  | 'PROJECTION_BROKEN'
  | 'PROJECTION_UNKNOWN'
  | 'PROVIDER_MISSING'
  | 'SECRET_NOT_FOUND'
  | 'PROMOTE_FAILED'
  | 'CALL_CONTEXT';

/** Exit codes the CLI uses for each kind of failure (2 = usage, as oclif does; 2 = could not read the log). */
const EXIT_CODES: Partial<Record<ErrorCode, number>> = { USAGE: 2, LOG_UNREADABLE: 2 };

export class FactorlyError extends Error {
  readonly [BRAND] = true;
  readonly code: ErrorCode;
  readonly data?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; data?: Record<string, unknown> } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'FactorlyError';
    this.code = code;
    this.data = options.data;
  }

  /** Process exit code for this error when it ends a CLI command. */
  get exitCode(): number {
    return EXIT_CODES[this.code] ?? 1;
  }

  static isInstance(value: unknown): value is FactorlyError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

/** Message of any thrown value, for places that must report without crashing. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
