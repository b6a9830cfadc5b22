import type { ForwardedError } from '@factorly/plugin-interface-mcp/api';

const SDK_PREFIX = /^MCP error -?\d+: /;

/**
 * An error from the other side of a hop (an upstream's answer, an agent's answer to a sampling
 * request) as an error to pass on unchanged: the same JSON-RPC code, message and data. The SDK
 * prefixes messages with "MCP error <code>: " when it raises them; that prefix is removed so the
 * next hop does not add a second one.
 */
export function forwardedError(error: unknown): ForwardedError {
  const source = error as { code?: unknown; message?: unknown; data?: unknown };
  const code = typeof source?.code === 'number' && Number.isSafeInteger(source.code) ? source.code : -32603;
  const message = typeof source?.message === 'string' ? source.message.replace(SDK_PREFIX, '') : String(error);
  return Object.assign(new Error(message), {
    name: 'ForwardedError',
    code,
    ...(source?.data === undefined ? {} : { data: source.data }),
  });
}
