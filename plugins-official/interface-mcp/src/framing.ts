import { jsonRpcError, type ErrorCode, type JsonRpcErrorBody } from '@factorly/error-kit';
/** How big one incoming MCP message may be by default (`--max-message-size`). */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export type RequestId = string | number;
export interface ErrorReply {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: JsonRpcErrorBody;
}

/** A message fit to hand to the MCP SDK, or the error to answer with instead. */
export type Checked = { message: Record<string, unknown> } | { reply: ErrorReply } | { drop: string };

/** The members of a JSON-RPC 2.0 message; the SDK's schemas are strict, so any other is left out before it looks. */
const MEMBERS = ['jsonrpc', 'id', 'method', 'params', 'result', 'error'] as const;

/**
 * One incoming JSON-RPC message, checked as JSON-RPC 2.0 and MCP want it, before the SDK sees it
 * (which otherwise answers nothing, or ends the session). Text that is not JSON is a parse error
 * (-32700); a batch (removed from MCP in 2025-06-18), a wrong `jsonrpc`, an id that is neither a
 * string nor a whole number, a method that is not a string, or an id with neither a method nor a
 * result or error is an invalid request (-32600), answered with the message's id when it has a
 * usable one; params that are not an object are -32602. Top-level members JSON-RPC does not define
 * (`"__proto__"`, a vendor's own) are ignored: the message passed on is a fresh object without them.
 * A malformed response from the client cannot be answered: it is dropped with the reason.
 */
export function checkText(text: string): Checked {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return reply(null, 'MESSAGE_NOT_JSON', `Parse error: the message is not JSON (${(error as Error).message})`);
  }
  return checkMessage(value);
}

export function checkMessage(value: unknown): Checked {
  if (Array.isArray(value))
    return reply(
      null,
      'REQUEST_INVALID',
      'Invalid Request: batches are not supported (JSON-RPC batching was removed from MCP in 2025-06-18); send one message at a time',
    );
  if (typeof value !== 'object' || value === null)
    return reply(null, 'REQUEST_INVALID', `Invalid Request: a JSON-RPC message is an object, got ${kind(value)}`);
  const message = jsonRpcMembers(value as Record<string, unknown>);
  const id = usableId(message.id);
  if (message.jsonrpc !== '2.0')
    return reply(id, 'REQUEST_INVALID', `Invalid Request: "jsonrpc" must be "2.0", got ${kind(message.jsonrpc)}`);
  if ('id' in message && id === null)
    return reply(
      null,
      'REQUEST_INVALID',
      `Invalid Request: "id" must be a string or a number (a whole one), got ${kind(message.id)}`,
    );
  if (!('method' in message)) return checkResponse(message);
  if (typeof message.method !== 'string')
    return reply(id, 'REQUEST_INVALID', `Invalid Request: "method" must be a string, got ${kind(message.method)}`);
  if (
    'params' in message &&
    (typeof message.params !== 'object' || message.params === null || Array.isArray(message.params))
  ) {
    return reply(
      id,
      'PARAMS_INVALID',
      `Invalid params: "params" of ${message.method} must be an object, got ${kind(message.params)}`,
    );
  }
  return { message };
}

/** The answer to a message too big to read: its id when the head or tail of what was seen shows one. */
export function oversized(bytes: number, limit: number, seen: { head: string; tail: string }): ErrorReply {
  const id =
    idIn(seen.head, /^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)/) ??
    idIn(seen.tail, /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)\s*\}\s*$/);
  return reply(
    id,
    'REQUEST_INVALID',
    `Invalid Request: a message of ${bytes} bytes is over the limit of ${limit} bytes (--max-message-size); it was not read`,
  ).reply;
}

/**
 * A message without a method is a response: it is passed on when it has an id and either a result
 * or an error. With an id and neither, it is a request that lost its method, answered -32600; a
 * response that cannot be one (no id, or both result and error) cannot be answered and is dropped.
 */
function checkResponse(message: Record<string, unknown>): Checked {
  const id = usableId(message.id);
  const hasResult = 'result' in message;
  const hasError = 'error' in message;
  if (!hasResult && !hasError)
    return reply(
      id,
      'REQUEST_INVALID',
      'Invalid Request: a message with no "method" must be a response, with "result" or "error"',
    );
  if (id === null || hasResult === hasError)
    return { drop: 'a message with no method that is not a response (an id and either result or error)' };
  return { message };
}

/** The message's own JSON-RPC members, copied into a fresh object: nothing else reaches the SDK. */
function jsonRpcMembers(message: Record<string, unknown>): Record<string, unknown> {
  const members: Record<string, unknown> = {};
  for (const name of MEMBERS) if (Object.hasOwn(message, name)) members[name] = message[name];
  return members;
}

function reply(id: RequestId | null, code: ErrorCode, message: string): { reply: ErrorReply } {
  return { reply: errorReply(id, code, message) };
}

/** A JSON-RPC error response for one of factorly's codes (its JSON-RPC code, and the code itself in `data`). */
export function errorReply(id: RequestId | null, code: ErrorCode, message: string): ErrorReply {
  return { jsonrpc: '2.0', id, error: jsonRpcError(code, message) };
}

/** The MCP SDK takes string and integer ids only (a fraction would be refused without an answer). */
function usableId(id: unknown): RequestId | null {
  return typeof id === 'string' || Number.isSafeInteger(id) ? (id as RequestId) : null;
}

function idIn(text: string, pattern: RegExp): RequestId | null {
  const match = pattern.exec(text);
  if (!match) return null;
  try {
    return usableId(JSON.parse(match[1]!));
  } catch {
    return null;
  }
}

function kind(value: unknown): string {
  if (value === undefined) return 'none';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value).slice(0, 40)}`;
}
