import { codeInfo, type ErrorCode, type PluginErrorCode } from './codes.js';
import { FactorlyError, messageOf } from './factorly-error.js';

/** The `error` member of a JSON-RPC response. Errors factorly raises carry their stable code in `data.factorlyCode`. */
export interface JsonRpcErrorBody {
  code: number;
  message: string;
  data?: { factorlyCode?: string; [key: string]: unknown };
}

/** The JSON-RPC error factorly answers with for one of its codes. */
export function jsonRpcError(code: ErrorCode | PluginErrorCode, message: string): JsonRpcErrorBody {
  return { code: codeInfo(code).jsonRpc, message, data: { factorlyCode: code } };
}

/**
 * Any thrown value as a JSON-RPC error: a FactorlyError by its code (its `data` stays inside
 * factorly: it may name local paths); an error that already is a JSON-RPC error (an upstream's
 * answer passed on, with a numeric code) unchanged; anything else is an internal error.
 */
export function jsonRpcErrorOf(error: unknown): JsonRpcErrorBody {
  if (FactorlyError.isInstance(error)) return jsonRpcError(error.code, error.message);
  const source = error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
  const message = typeof source?.message === 'string' ? source.message : messageOf(error);
  if (typeof source?.code === 'number' && Number.isSafeInteger(source.code)) {
    const data = source.data as JsonRpcErrorBody['data'];
    return { code: source.code, message, ...(data === undefined ? {} : { data }) };
  }
  return jsonRpcError('INTERNAL', message);
}

/**
 * An error to throw from an MCP SDK request handler: the SDK answers with its numeric `code`,
 * `message` and `data` as they are (a FactorlyError's string code would become -32603).
 */
export class JsonRpcError extends Error {
  readonly code: number;
  readonly data?: JsonRpcErrorBody['data'];

  constructor(body: JsonRpcErrorBody, options: { cause?: unknown } = {}) {
    super(body.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'JsonRpcError';
    this.code = body.code;
    if (body.data !== undefined) this.data = body.data;
  }

  /** The JSON-RPC error for one of factorly's codes (`data.factorlyCode` says which). */
  static of(code: ErrorCode | PluginErrorCode, message: string): JsonRpcError {
    return new JsonRpcError(jsonRpcError(code, message));
  }

  static from(error: unknown): JsonRpcError {
    return error instanceof JsonRpcError ? error : new JsonRpcError(jsonRpcErrorOf(error), { cause: error });
  }
}

/** For a request handler's `.catch`: whatever it threw, answered as the JSON-RPC error it stands for. */
export function rethrowAsJsonRpc(error: unknown): never {
  throw JsonRpcError.from(error);
}
