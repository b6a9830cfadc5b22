// The words every event uses: where a call came in, how it ended, what a rule decided, JSON values.
export type Interface = 'cli' | 'mcp' | 'code' | 'ui' | 'exec' | 'system' | (string & {});

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

export type Decision = 'allow' | 'warn' | 'deny' | 'confirm' | 'rate_limited' | 'loop_blocked' | 'invalid';

export const DECISIONS: readonly Decision[] = [
  'allow',
  'warn',
  'deny',
  'confirm',
  'rate_limited',
  'loop_blocked',
  'invalid',
];

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export type Params = Record<string, JsonValue>;
