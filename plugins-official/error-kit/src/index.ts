export { ERROR_CODES, JsonRpcCode, codeInfo, isErrorCode, isPluginErrorCode } from './codes.js';
export type { CodeInfo, ErrorCode, PluginErrorCode } from './codes.js';
export { FactorlyError, internalError, messageOf } from './factorly-error.js';
export { JsonRpcError, jsonRpcError, jsonRpcErrorOf, rethrowAsJsonRpc } from './json-rpc.js';
export type { JsonRpcErrorBody } from './json-rpc.js';
export { crossing, uncrossed } from './crossing.js';
export type { CrossedError } from './crossing.js';
