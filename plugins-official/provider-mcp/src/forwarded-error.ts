import { JsonRpcError, jsonRpcErrorOf } from '@factorly/error-kit';
import type { ForwardedError } from '@factorly/plugin-interface-mcp/api';

const SDK_PREFIX = /^MCP error -?\d+: /;

/**
 * An error from the other side of a hop (an upstream's answer, an agent's answer to a sampling
 * request) as an error to pass on unchanged: the same JSON-RPC code, message and data (factorly's
 * own failures on the way, such as an upstream that cannot be reached, by their code). The SDK
 * prefixes messages with "MCP error <code>: " when it raises them; that prefix is removed so the
 * next hop does not add a second one.
 */
export function forwardedError(error: unknown): ForwardedError {
  const body = jsonRpcErrorOf(error);
  return Object.assign(new JsonRpcError({ ...body, message: body.message.replace(SDK_PREFIX, '') }), {
    name: 'ForwardedError',
  });
}
