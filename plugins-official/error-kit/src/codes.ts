/**
 * JSON-RPC 2.0 error codes (https://www.jsonrpc.org/specification#error_object). -32000 to -32099
 * is the range a server defines: factorly's own codes live there, clear of the numbers the MCP SDK
 * and spec already use (-32000 connection closed, -32001 request timeout, -32002 resource not
 * found, -32042 URL elicitation required).
 */
export const JsonRpcCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** Any server error with no number of its own: a plugin's namespaced code. */
  SERVER_ERROR: -32000,
} as const;

/** How one code ends a CLI command and answers a JSON-RPC request. */
export interface CodeInfo {
  exit: number;
  jsonRpc: number;
}

const fail = (jsonRpc: number): CodeInfo => ({ exit: 1, jsonRpc });

/**
 * Every code factorly and its official plugins raise, with its CLI exit code (2 = usage, as oclif
 * does, and "the log could not be read") and JSON-RPC code. Numbers are stable: never renumber
 * one, add new codes with new numbers. docs/errors.md describes each (a test keeps them in step).
 */
export const ERROR_CODES = {
  USAGE: { exit: 2, jsonRpc: -32010 },
  CONFIG_NOT_FOUND: fail(-32011),
  CONFIG_INVALID: fail(-32012),
  /** No tool of that name is configured. The MCP spec answers an unknown tool with -32602. */
  TOOL_NOT_FOUND: fail(JsonRpcCode.INVALID_PARAMS),
  /** No recorded call matches an id or hash prefix. */
  CALL_NOT_FOUND: fail(-32013),
  PARAMS_INVALID: fail(JsonRpcCode.INVALID_PARAMS),
  CALL_CONTEXT: fail(-32014),
  PROVIDER_MISSING: fail(-32015),
  INTERFACE_MISSING: fail(-32016),
  PROMOTE_FAILED: fail(-32017),
  PLUGIN_INVALID: fail(-32020),
  PLUGIN_API_MISMATCH: fail(-32021),
  PLUGIN_DEPENDENCY: fail(-32022),
  PLUGIN_INIT_FAILED: fail(-32023),
  EXTENSION_CONFLICT: fail(-32024),
  LIFECYCLE: fail(-32025),
  /** There is no event log yet: nothing was recorded in this project. */
  LOG_EMPTY: fail(-32030),
  LOG_CONFLICT: fail(-32031),
  LOG_CORRUPT: fail(-32032),
  LOG_UNREADABLE: { exit: 2, jsonRpc: -32033 },
  LOG_WRITE_FAILED: fail(-32034),
  LOG_KEY: fail(-32035),
  EVENT_UNKNOWN: fail(-32036),
  PROJECTION_CONFLICT: fail(-32037),
  PROJECTION_BROKEN: fail(-32038),
  PROJECTION_UNKNOWN: fail(-32039),
  SECRET_NOT_FOUND: fail(-32040),
  SECRET_WITHHELD: fail(-32041),
  VAULT_LOCKED: fail(-32043),
  VAULT_WRONG_PASSWORD: fail(-32044),
  VAULT_CORRUPT: fail(-32045),
  VAULT_UNSUPPORTED: fail(-32046),
  VAULT_KEY_FILE: fail(-32047),
  VAULT_BUSY: fail(-32048),
  VAULT_BACKEND: fail(-32049),
  LISTEN_FAILED: fail(-32050),
  UPSTREAM_FAILED: fail(-32051),
  ENGINE_FAILED: fail(-32052),
  /** A person was asked and gave no answer: cancelled, no input, or no terminal to ask on. */
  NO_ANSWER: fail(-32053),
  /** The network guard refused an address a request would reach (private, loopback, link-local, metadata). */
  ADDRESS_BLOCKED: fail(-32054),
  /** A rule refused an inner call a script made, thrown so the script can catch it (max_calls). */
  CALL_BLOCKED: fail(-32018),
  /** A tool a script called (`tools.<name>()`) failed: the message holds its error. */
  TOOL_FAILED: fail(-32019),
  /** No standing approval by that id is in force (`factorly approvals revoke`). */
  APPROVAL_NOT_FOUND: fail(-32059),
  /** The engine or plugin in use does not offer what was asked of it. */
  NOT_SUPPORTED: fail(-32055),
  /** A tool needs an OAuth login that is missing or can no longer be refreshed: `factorly auth login`. */
  AUTH_REQUIRED: fail(-32056),
  /** An OAuth exchange failed: the authorization server refused it, or could not be reached. */
  AUTH_FAILED: fail(-32057),
  /** A blueprint (or the blueprint an OpenAPI import makes) is malformed or carries what a blueprint may not. */
  BLUEPRINT_INVALID: fail(-32070),
  /** A blueprint cannot join this config: a name it brings is taken, a requirement is missing, or it is installed. */
  BLUEPRINT_REFUSED: fail(-32071),
  /** No bundled blueprint, file or installed blueprint of that name. */
  BLUEPRINT_NOT_FOUND: fail(-32072),
  /** An OpenAPI or Swagger description that cannot be read: invalid, a `$ref` that does not resolve or leaves its folder. */
  SPEC_INVALID: fail(-32073),
  MESSAGE_NOT_JSON: fail(JsonRpcCode.PARSE_ERROR),
  REQUEST_INVALID: fail(JsonRpcCode.INVALID_REQUEST),
  METHOD_NOT_FOUND: fail(JsonRpcCode.METHOD_NOT_FOUND),
  /** The MCP SDK's own Streamable HTTP server answers an unknown session with -32001: so does factorly. */
  SESSION_NOT_FOUND: fail(-32001),
  /** A broken invariant: a bug in factorly, never the user's input. */
  INTERNAL: fail(JsonRpcCode.INTERNAL_ERROR),
} as const satisfies Record<string, CodeInfo>;

/** A code of factorly's own (see ERROR_CODES and docs/errors.md). */
export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * A code a third-party plugin defines: `<plugin id>.<CODE>` (`acme.QUOTA_EXCEEDED`), so it can never
 * collide with factorly's codes or another plugin's. Exit 1, JSON-RPC -32000.
 */
export type PluginErrorCode = `${string}.${Uppercase<string>}`;

const PLUGIN_CODE = /^[a-z0-9][a-z0-9-]*\.[A-Z][A-Z0-9_]*$/;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}

export function isPluginErrorCode(code: string): code is PluginErrorCode {
  return PLUGIN_CODE.test(code);
}

/** The CLI exit code and JSON-RPC code of any code: a plugin's (or an unknown one) as a plain failure. */
export function codeInfo(code: string): CodeInfo {
  return isErrorCode(code) ? ERROR_CODES[code] : fail(JsonRpcCode.SERVER_ERROR);
}
