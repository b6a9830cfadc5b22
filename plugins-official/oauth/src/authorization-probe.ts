import type { OAuthLoginKind } from 'factorly';
import { authFailed } from './login-errors.js';
import type { TokenPlace } from './token-store.js';

/** An authorization server's refusal of an authorization request, shown to the person instead of redirected. */
export interface Refusal {
  status: number;
  error: string;
  description?: string;
}

/** The error codes of RFC 6749 §4.1.2.1 (and the ones servers use beside them), as an error page names them. */
const PAGE_CODES =
  /\b(invalid_client|unauthorized_client|invalid_request|invalid_redirect_uri|redirect_uri_mismatch|invalid_scope|invalid_target|unsupported_response_type|access_denied)\b/;
/** A client the server no longer knows (or will not let use this grant): registering again may mend it. */
const CLIENT_CODES = new Set(['invalid_client', 'unauthorized_client']);
const MAX_BODY = 65_536;

/**
 * Asks the authorization server for `url` before a person is sent there. A client it does not know
 * or a redirect URI it does not allow is not redirected back (RFC 6749 §4.1.2.1) but shown on a page:
 * the login would wait for a callback that never comes. An answer 400 or 401 that names an OAuth
 * error is that refusal; anything else (a redirect to its login page, a login page, a bot check, no
 * answer) is left to the browser, as before.
 */
export async function refusalOf(url: URL, fetchFn: typeof fetch): Promise<Refusal | undefined> {
  let response: Response;
  try {
    response = await fetchFn(url, { redirect: 'manual', headers: { accept: 'application/json, text/html' } });
  } catch {
    return undefined; // the browser may still get there (a proxy, a VPN): let it try
  }
  if (response.status !== 400 && response.status !== 401) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  const text = (await response.text().catch(() => '')).slice(0, MAX_BODY);
  const body = jsonOf(text);
  // A JSON answer is read as JSON only; a page (HTML, text) by the error code it names.
  return body === NOT_JSON ? refusalInPage(text, response.status) : refusalInJson(body, response.status);
}

/**
 * Throws when the server refuses `url`. A refused client that factorly registered (`registered`)
 * throws the MCP SDK's `InvalidClientError`, on which its `auth()` forgets the client and registers
 * again, once; any other refusal ends the login of `place` at once, in the server's words.
 */
export async function checkAuthorizationUrl(
  url: URL,
  place: TokenPlace & { kind?: OAuthLoginKind },
  options: { registered: boolean; fetchFn: typeof fetch },
): Promise<void> {
  const refusal = await refusalOf(url, options.fetchFn);
  if (!refusal) return;
  const words = [refusal.error, refusal.description].filter(Boolean).join(': ');
  if (options.registered && CLIENT_CODES.has(refusal.error)) {
    const { InvalidClientError } = await import('@modelcontextprotocol/sdk/server/auth/errors.js');
    throw new InvalidClientError(`the authorization server does not know the client registered with it (${words})`);
  }
  throw authFailed(place, `the authorization server refused the login request (HTTP ${refusal.status} ${words})`);
}

const NOT_JSON = Symbol('not JSON');

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

function refusalInJson(body: unknown, status: number): Refusal | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { error, error_description: description } = body as { error?: unknown; error_description?: unknown };
  if (typeof error !== 'string' || !/^[a-z_]{1,64}$/.test(error)) return undefined;
  return { status, error, ...(typeof description === 'string' ? { description: printable(description) } : {}) };
}

function refusalInPage(text: string, status: number): Refusal | undefined {
  const error = PAGE_CODES.exec(text)?.[1];
  return error === undefined ? undefined : { status, error };
}

/** A description as the terminal may show it: printable ASCII, at most 200 characters. */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]+/g, ' ').slice(0, 200);
}
