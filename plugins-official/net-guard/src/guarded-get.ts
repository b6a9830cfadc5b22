import { FactorlyError } from '@factorly/error-kit';
import { utf8BoundaryBefore } from '@factorly/text-kit';
import type { Agent } from 'undici';
import { guardedLookup, guardLookup, type Resolver } from './lookup.js';
import { addressProblem, isAllowed, urlProblem } from './url-guard.js';

export interface GuardedGetOptions {
  method?: 'GET' | 'HEAD';
  /** URLs let through although the guard would refuse them (a tool's `shadow.allow_urls`). */
  allowUrls?: readonly string[];
  signal?: AbortSignal;
  /** Bytes of the body kept (default 1 MiB); the rest is dropped and `cut` set. */
  cap?: number;
  maxRedirects?: number;
  /** How host names are resolved (tests point a name at an address). */
  resolve?: Resolver;
}

export interface GuardedAnswer {
  status: number;
  statusText: string;
  /** The body as UTF-8, cut at a character boundary within the cap. */
  text: string;
  cut: boolean;
  /** Where the answer came from, after redirects. */
  url: URL;
}

export const DEFAULT_BODY_CAP = 1024 * 1024;
const MAX_REDIRECTS = 5;

/**
 * GET (or HEAD) a URL through the SSRF guard: the URL and each redirect are checked before they are
 * followed, and the connection only goes to addresses the guard accepts (the check runs in the
 * socket's DNS lookup, so a name that resolves to a private address, or is re-pointed to one
 * between check and connect, is refused too). `allowUrls` lets exactly the listed URLs through.
 * A refused hop throws `ADDRESS_BLOCKED`; too many redirects throw `UPSTREAM_FAILED`.
 */
export async function guardedGet(start: URL, options: GuardedGetOptions = {}): Promise<GuardedAnswer> {
  // undici is imported on first use: few commands fetch.
  const { Agent: UndiciAgent, fetch } = await import('undici');
  const lookup = options.resolve ? guardLookup(addressProblem, options.resolve) : guardedLookup;
  const guarded: Agent = new UndiciAgent({ connect: { lookup } });
  const open: Agent = new UndiciAgent();
  const cap = options.cap ?? DEFAULT_BODY_CAP;
  const maxRedirects = options.maxRedirects ?? MAX_REDIRECTS;
  let url = start;
  try {
    for (let hop = 0; hop <= maxRedirects; hop += 1) {
      const allowed = isAllowed(url, options.allowUrls ?? []);
      const problem = allowed ? undefined : urlProblem(url);
      if (problem)
        throw new FactorlyError('ADDRESS_BLOCKED', hop === 0 ? problem : `${problem} (redirected to ${url.href})`);
      const response = await fetch(url, {
        method: options.method ?? 'GET',
        redirect: 'manual',
        signal: options.signal,
        dispatcher: allowed ? open : guarded,
      });
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        url = new URL(location, url);
        continue;
      }
      const { text, cut } = await readCapped(response.body, cap);
      return { status: response.status, statusText: response.statusText, text, cut, url };
    }
    throw new FactorlyError('UPSTREAM_FAILED', `too many redirects (more than ${maxRedirects})`);
  } finally {
    await Promise.all([guarded.close(), open.close()]);
  }
}

async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  cap: number,
): Promise<{ text: string; cut: boolean }> {
  if (!body) return { text: '', cut: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= cap) break;
  }
  const bytes = Buffer.concat(chunks);
  const cut = size >= cap;
  return { text: (cut ? bytes.subarray(0, utf8BoundaryBefore(bytes, cap)) : bytes).toString('utf8'), cut };
}
