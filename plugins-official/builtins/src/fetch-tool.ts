import { DEFAULT_BODY_CAP, guardedGet } from '@factorly/net-guard';
import type { ToolCall, ToolResult } from 'factorly';

/**
 * `factorly.fetch`: GET (or HEAD) a URL through net-guard's `guardedGet`: every hop (the URL and
 * each redirect) is checked before it is followed, and the connection itself only goes to addresses
 * the guard accepts. `shadow.allow_urls` lets exactly the listed URLs through.
 */
export async function fetchTool(call: ToolCall, allowUrls: readonly string[]): Promise<ToolResult> {
  let url: URL;
  try {
    url = new URL(String(call.params.url));
  } catch {
    return { output: '', error: `url is not a valid URL: ${JSON.stringify(call.params.url)}`, exitCode: 1 };
  }
  try {
    const method = String(call.params.method ?? 'GET') === 'HEAD' ? 'HEAD' : 'GET';
    const answer = await guardedGet(url, { method, allowUrls, signal: call.signal });
    const output = answer.cut ? `${answer.text}\n[factorly: response cut at ${DEFAULT_BODY_CAP} bytes]` : answer.text;
    if (answer.status >= 400)
      return { output, error: `HTTP ${answer.status} ${answer.statusText}`.trim(), exitCode: 1 };
    return { output, exitCode: 0 };
  } catch (error) {
    return { output: '', error: failure(error, call), exitCode: call.signal.aborted ? 124 : 1 };
  }
}

function failure(error: unknown, call: ToolCall): string {
  if (call.signal.aborted) return `request timed out after ${call.timeoutMs}ms`;
  const cause = (error as { cause?: { message?: string } }).cause;
  return cause?.message ?? (error as Error).message;
}
