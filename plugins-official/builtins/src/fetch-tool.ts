import { guardedLookup, isAllowed, urlProblem } from '@factorly/net-guard';
import type { Agent } from 'undici';
import { utf8BoundaryBefore } from '@factorly/text-kit';
import type { ToolCall, ToolResult } from 'factorly';

const MAX_REDIRECTS = 5;
const BODY_CAP = 1024 * 1024;

/**
 * `factorly.fetch`: GET (or HEAD) a URL. Every hop (the URL and each redirect) is checked before it
 * is followed, and the connection itself only goes to addresses the guard accepts: the check runs
 * in the socket's DNS lookup, so a name that resolves to a private address (or is re-pointed to one
 * between check and connect) is refused too. `shadow.allow_urls` lets exactly the listed URLs through.
 */
export async function fetchTool(call: ToolCall, allowUrls: readonly string[]): Promise<ToolResult> {
  let url: URL;
  try {
    url = new URL(String(call.params.url));
  } catch {
    return { output: '', error: `url is not a valid URL: ${JSON.stringify(call.params.url)}`, exitCode: 1 };
  }
  // undici is imported on first use: every CLI command loads this plugin, few fetch.
  const { Agent: UndiciAgent, fetch } = await import('undici');
  const guarded: Agent = new UndiciAgent({ connect: { lookup: guardedLookup } });
  const open: Agent = new UndiciAgent();
  try {
    for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
      const allowed = isAllowed(url, allowUrls);
      const problem = allowed ? undefined : urlProblem(url);
      if (problem)
        return { output: '', error: hop === 0 ? problem : `${problem} (redirected to ${url.href})`, exitCode: 1 };
      const response = await fetch(url, {
        method: String(call.params.method ?? 'GET'),
        redirect: 'manual',
        signal: call.signal,
        dispatcher: allowed ? open : guarded,
      });
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        url = new URL(location, url);
        continue;
      }
      const { text, cut } = await readCapped(response.body);
      const output = cut ? `${text}\n[factorly: response cut at ${BODY_CAP} bytes]` : text;
      if (response.status >= 400)
        return { output, error: `HTTP ${response.status} ${response.statusText}`.trim(), exitCode: 1 };
      return { output, exitCode: 0 };
    }
    return { output: '', error: `too many redirects (more than ${MAX_REDIRECTS})`, exitCode: 1 };
  } catch (error) {
    return { output: '', error: failure(error, call), exitCode: call.signal.aborted ? 124 : 1 };
  } finally {
    await Promise.all([guarded.close(), open.close()]);
  }
}

async function readCapped(body: ReadableStream<Uint8Array> | null): Promise<{ text: string; cut: boolean }> {
  if (!body) return { text: '', cut: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= BODY_CAP) break;
  }
  const bytes = Buffer.concat(chunks);
  const cut = size >= BODY_CAP;
  return { text: (cut ? bytes.subarray(0, utf8BoundaryBefore(bytes, BODY_CAP)) : bytes).toString('utf8'), cut };
}

function failure(error: unknown, call: ToolCall): string {
  if (call.signal.aborted) return `request timed out after ${call.timeoutMs}ms`;
  const cause = (error as { cause?: { message?: string } }).cause;
  return cause?.message ?? (error as Error).message;
}
