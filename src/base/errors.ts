/**
 * factorly's error family, defined once in @factorly/error-kit so the official plugins (which cannot
 * import factorly at run time) raise the same FactorlyError with the same codes. docs/errors.md
 * lists every code: its meaning, exit code and JSON-RPC code.
 */
export {
  codeInfo,
  crossing,
  uncrossed,
  ERROR_CODES,
  FactorlyError,
  internalError,
  isErrorCode,
  JsonRpcCode,
  JsonRpcError,
  jsonRpcError,
  jsonRpcErrorOf,
  messageOf,
} from '@factorly/error-kit';
export type { CrossedError, ErrorCode, JsonRpcErrorBody, PluginErrorCode } from '@factorly/error-kit';
