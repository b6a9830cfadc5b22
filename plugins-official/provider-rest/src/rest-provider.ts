import type { ToolCall, ToolDefinition, ToolProvider, ToolResult } from 'factorly';
import { buildRequest } from './build-request.js';
import { prepareRest, readRestSpec, REST_KEYS } from './rest-spec.js';

/**
 * `type: rest`: one HTTP request per call through Node's fetch (undici). A status of 400 or more is
 * an error whose output keeps the response body; the error names the status. A timeout exits 124,
 * as a timed-out `cli` tool does.
 */
export class RestProvider implements ToolProvider {
  readonly type = 'rest';
  readonly keys = REST_KEYS;

  prepare(tool: ToolDefinition) {
    return prepareRest(tool);
  }

  async execute(call: ToolCall): Promise<ToolResult> {
    const request = await buildRequest(readRestSpec(call.tool), call.tool, call.params, call.secrets);
    let response: Response;
    let text: string;
    try {
      response = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body, signal: call.signal });
      text = await response.text();
    } catch (error) {
      return failure(error, call, `${request.method} ${request.url.origin}${request.url.pathname}`);
    }
    if (response.status >= 400) return { output: text, error: `HTTP ${response.status} ${response.statusText}`.trim(), exitCode: 1 };
    return { output: text, exitCode: 0 };
  }
}

function failure(error: unknown, call: ToolCall, target: string): ToolResult {
  if (call.signal.aborted) {
    const timedOut = (call.signal.reason as Error | undefined)?.name === 'TimeoutError';
    return timedOut
      ? { output: '', error: `${target}: request timed out after ${formatMs(call.timeoutMs)}`, exitCode: 124 }
      : { output: '', error: `${target}: request was cancelled`, exitCode: 130 };
  }
  const cause = (error as { cause?: { message?: string } }).cause?.message;
  return { output: '', error: `${target}: request failed: ${cause ?? (error as Error).message}`, exitCode: 1 };
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
