import {
  alwaysRefusedProblem,
  alwaysRefusedUrlProblem,
  guardLookup,
  addressProblem,
  isAllowed,
  urlProblem,
  type Resolver,
} from '@factorly/net-guard';
import type { ToolCall } from 'factorly';
import type { Agent } from 'undici';
import type { HttpRequest } from './build-request.js';
import { holdsSecret, isRedirect, redirected, withoutSecrets } from './redirects.js';
import type { FollowRedirects } from './rest-spec.js';

const MAX_REDIRECTS = 5;

/**
 * Who picks where a call goes. The first request goes where the config says unless the agent
 * steers it (a base_url or path that uses a param): then it passes the SSRF guard of
 * factorly.fetch (loopback, private, link-local, metadata; checked on the URL and again at DNS
 * lookup) unless `shadow.allow_urls` lists it. A redirect is the server's choice, never the
 * config's: every hop passes the guard, except hops to the origin a fixed base_url names (a local
 * API may redirect to itself); `allow_urls` lets a listed loopback or private target through, but
 * never a link-local or metadata address (also not behind a name that resolves to one).
 */
export interface Steering {
  agentSteered: boolean;
  /** The origin of a base_url without params: the config's own choice. */
  configuredOrigin?: string;
  allowUrls: readonly string[];
}

/** How one hop may connect: anywhere, through the whole guard, or only past the always-refused addresses. */
type Reach = 'open' | 'guarded' | 'listed';

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
  resolve?: Resolver,
): Promise<Sent> {
  // undici is imported on first use: every CLI command loads this plugin, few call a rest tool.
  const { Agent: UndiciAgent, fetch } = await import('undici');
  const agents: Record<Reach, Agent> = {
    open: new UndiciAgent(),
    guarded: new UndiciAgent({ connect: { lookup: guardLookup(addressProblem, resolve) } }),
    listed: new UndiciAgent({ connect: { lookup: guardLookup(alwaysRefusedProblem, resolve) } }),
  };
  const origin = request.url.origin;
  const secrets = [...call.secrets.resolved().values()];
  const notes: string[] = [];
  let current = request;
  // Whether a query sent to the tool's origin held a secret: its redirect may repeat it in any form.
  let queryHeldSecret = request.secretInUrl === true;
  try {
    for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
      const guard = guardFor(current.url, steering, hop);
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
        dispatcher: agents[guard.reach],
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
      if (current.url.origin === origin) queryHeldSecret ||= holdsSecret(current.url.search, secrets);
      if (next.url.origin === origin) {
        current = next;
        continue;
      }
      const stripped = withoutSecrets(next, secrets, current.url.origin === origin && queryHeldSecret);
      if ('refused' in stripped)
        return {
          error: `${current.method} ${current.url.origin}${current.url.pathname}: HTTP ${response.status} redirect to ${next.url.origin}, another origin, refused: ${stripped.refused}`,
          exitCode: 1,
          notes,
        };
      current = stripped.request;
      if (stripped.dropped.length > 0)
        notes.push(`redirected to ${next.url.origin}, another origin: sent without ${stripped.dropped.join(', ')}`);
    }
    return { error: `too many redirects (more than ${MAX_REDIRECTS})`, exitCode: 1, notes };
  } finally {
    await Promise.all(Object.values(agents).map((agent) => agent.close()));
  }
}

/** How a hop may go (see `Steering`): the config's first URL and its own origin go anywhere. */
function guardFor(url: URL, steering: Steering, hop: number): { problem?: string; reach: Reach } {
  if ((hop === 0 && !steering.agentSteered) || url.origin === steering.configuredOrigin) return { reach: 'open' };
  const always = hop === 0 ? undefined : alwaysRefusedUrlProblem(url);
  if (always) return { problem: always, reach: 'guarded' };
  if (!isAllowed(url, steering.allowUrls)) return { problem: urlProblem(url), reach: 'guarded' };
  return { reach: hop === 0 ? 'open' : 'listed' };
}

function refusal(follow: FollowRedirects, response: Response, target: URL, origin: string): string | undefined {
  const status = `HTTP ${response.status} redirect to ${target.origin}${target.pathname}`;
  if (follow === 'none') return `${status} not followed (follow_redirects: none)`;
  if (follow === 'same-origin' && target.origin !== origin) {
    return `${status}, another origin, refused (follow_redirects: same-origin; "any" follows it without the tool's secrets)`;
  }
  return undefined;
}
