import { guardedLookup, isAllowed, urlProblem } from '@factorly/net-guard';
import type { ToolCall } from 'factorly';
import type { Agent } from 'undici';
import type { HttpRequest } from './build-request.js';
import { isRedirect, redirected, withoutSecrets } from './redirects.js';
import type { FollowRedirects } from './rest-spec.js';

const MAX_REDIRECTS = 5;

/**
 * Who picks where a call goes. A tool whose base_url or path uses a param lets the agent steer the
 * URL, so every hop of it passes the SSRF guard of factorly.fetch (loopback, private, link-local,
 * metadata; checked on the URL and again at DNS lookup) — except hops to the origin a fixed
 * base_url names, which the config chose, and URLs `shadow.allow_urls` lists.
 */
export interface Steering {
  agentSteered: boolean;
  /** The origin of a base_url without params: the config's own choice. */
  configuredOrigin?: string;
  allowUrls: readonly string[];
}

export type Sent =
  | { status: number; statusText: string; text: string; notes: string[] }
  | { error: string; exitCode: number; notes: string[] };

/**
 * Sends the request and follows its redirects as `follow` says, guarding each hop; reads the final
 * body before its connections are closed.
 */
export async function send(
  request: HttpRequest,
  call: ToolCall,
  follow: FollowRedirects,
  steering: Steering,
): Promise<Sent> {
  // undici is imported on first use: every CLI command loads this plugin, few call a rest tool.
  const { Agent: UndiciAgent, fetch } = await import('undici');
  const guarded: Agent = new UndiciAgent({ connect: { lookup: guardedLookup } });
  const open: Agent = new UndiciAgent();
  const origin = request.url.origin;
  const secrets = [...call.secrets.resolved().values()];
  const notes: string[] = [];
  let current = request;
  try {
    for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
      const guard = guardFor(current.url, steering);
      if (guard.problem)
        return {
          error: hop === 0 ? guard.problem : `${guard.problem} (redirected to ${current.url.href})`,
          exitCode: 1,
          notes,
        };
      const response = (await fetch(current.url, {
        method: current.method,
        headers: Object.fromEntries(current.headers),
        body: current.body,
        redirect: 'manual',
        signal: call.signal,
        dispatcher: guard.open ? open : guarded,
      })) as unknown as Response;
      if (!isRedirect(response))
        return { status: response.status, statusText: response.statusText, text: await response.text(), notes };
      await response.body?.cancel();
      const next = redirected(current, response);
      const refused = refusal(follow, response, next.url, origin);
      if (refused)
        return {
          error: `${current.method} ${current.url.origin}${current.url.pathname}: ${refused}`,
          exitCode: 1,
          notes,
        };
      current = next;
      if (next.url.origin !== origin) {
        const stripped = withoutSecrets(current, secrets);
        current = stripped.request;
        if (stripped.dropped.length > 0)
          notes.push(`redirected to ${next.url.origin}, another origin: sent without ${stripped.dropped.join(', ')}`);
      }
    }
    return { error: `too many redirects (more than ${MAX_REDIRECTS})`, exitCode: 1, notes };
  } finally {
    await Promise.all([guarded.close(), open.close()]);
  }
}

function guardFor(url: URL, steering: Steering): { problem?: string; open: boolean } {
  if (!steering.agentSteered || url.origin === steering.configuredOrigin || isAllowed(url, steering.allowUrls))
    return { open: true };
  return { problem: urlProblem(url), open: false };
}

function refusal(follow: FollowRedirects, response: Response, target: URL, origin: string): string | undefined {
  const status = `HTTP ${response.status} redirect to ${target.origin}${target.pathname}`;
  if (follow === 'none') return `${status} not followed (follow_redirects: none)`;
  if (follow === 'same-origin' && target.origin !== origin) {
    return `${status}, another origin, refused (follow_redirects: same-origin; "any" follows it without the tool's secrets)`;
  }
  return undefined;
}
