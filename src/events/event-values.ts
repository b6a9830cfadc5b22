// The words every event uses: where a call came in, how it ended, what a rule decided, JSON values.
/**
 * How a call came in (the `iface` field of call and session events): the CLI, an MCP session, a
 * script's inner call, the web UI… Not to be confused with an interface plugin (`FactorlyInterface`,
 * a way in that a plugin brings, such as `mcp` or `ui`).
 */
export type CallOrigin = 'cli' | 'mcp' | 'code' | 'ui' | 'exec' | 'system' | (string & {});

/**
 * `cancelled`: stopped from outside before its own end (its caller cancelled, or its call tree
 * stopped: exit 130); `timeout`: the tool's own deadline passed (exit 124); `interrupted`: no
 * outcome on record, because the process that ran it ended first or could not write its completion
 * (`call.interrupted`, never a `call.completed` status).
 */
export type CallStatus = 'success' | 'error' | 'blocked' | 'cancelled' | 'timeout' | 'interrupted';

export const CALL_STATUSES: readonly CallStatus[] = [
  'success',
  'error',
  'blocked',
  'cancelled',
  'timeout',
  'interrupted',
];

/** `definition_changed`: the tool is held, its definition differs from the one pinned (the pins plugin). */
export type Decision =
  'allow' | 'warn' | 'deny' | 'confirm' | 'rate_limited' | 'loop_blocked' | 'invalid' | 'definition_changed';

export const DECISIONS: readonly Decision[] = [
  'allow',
  'warn',
  'deny',
  'confirm',
  'rate_limited',
  'loop_blocked',
  'invalid',
  'definition_changed',
];

/** The decisions that refuse a call: a rule chain stops at the first, and the call must not run. */
export const BLOCKING_DECISIONS: readonly Decision[] = [
  'deny',
  'rate_limited',
  'loop_blocked',
  'invalid',
  'definition_changed',
];

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export type Params = Record<string, JsonValue>;
