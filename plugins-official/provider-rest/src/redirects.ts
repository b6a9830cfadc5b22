import type { HttpRequest } from './build-request.js';

/** Headers a hop to another origin never carries, whatever the tool configured (as the Fetch standard drops them). */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

export function isRedirect(response: Response): boolean {
  return response.status >= 300 && response.status < 400 && response.headers.has('location');
}

/**
 * The request for the hop a redirect names, with the method and body the Fetch standard gives it:
 * 303 (and 301/302 after a POST) become a GET without a body; 307 and 308 repeat the request.
 */
export function redirected(request: HttpRequest, response: Response): HttpRequest {
  const url = new URL(response.headers.get('location')!, request.url);
  const rewrite =
    response.status === 303
      ? request.method !== 'HEAD'
      : [301, 302].includes(response.status) && request.method === 'POST';
  if (!rewrite) return { ...request, url, headers: new Headers(request.headers) };
  const headers = new Headers(request.headers);
  for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'])
    headers.delete(name);
  return { ...request, url, method: 'GET', headers, body: undefined };
}

/**
 * The request without anything that holds a resolved secret, for a hop to another origin: the
 * credential headers, every header built from a secret, every header and body field whose value
 * holds a secret value (verbatim, URL-encoded, JSON-escaped or base64), and the whole query when it
 * holds one or when `queryHeldSecret` (the query sent to the tool's origin held one): a server that
 * keeps the query in its redirect may split it at `&`, decode `+` or re-encode it, forms no match
 * would catch, so no parameter of it is trusted. A path that holds a secret cannot be dropped: the
 * hop is refused. Returns what was dropped, by name, for the call's diagnostics (never a value).
 */
export function withoutSecrets(
  request: HttpRequest,
  secrets: readonly string[],
  queryHeldSecret = false,
): { request: HttpRequest; dropped: string[] } | { refused: string } {
  const holds = (text: string): boolean => holdsSecret(text, secrets);
  const url = new URL(request.url);
  if (holds(url.pathname) || holds(safeDecode(url.pathname)))
    return { refused: "its path holds one of the tool's secrets" };
  const dropped: string[] = [];
  const headers = new Headers(request.headers);
  for (const [name, value] of request.headers) {
    if (CREDENTIAL_HEADERS.includes(name) || request.secretHeaders.has(name) || holds(value)) {
      headers.delete(name);
      dropped.push(`header ${name}`);
    }
  }
  if (url.username || url.password) {
    url.username = '';
    url.password = '';
    dropped.push('URL credentials');
  }
  const search = url.search;
  if (search !== '' && (queryHeldSecret || holds(search) || holds(safeDecode(search.replaceAll('+', ' '))))) {
    url.search = '';
    dropped.push('the query');
  }
  const body =
    request.body === undefined
      ? undefined
      : bodyWithout(request.body, headers.get('content-type') ?? '', holds, dropped);
  return { request: { ...request, url, headers, body, secretHeaders: new Set() }, dropped };
}

/** Whether `text` holds a secret value in one of the forms it takes on the wire. */
export function holdsSecret(text: string, secrets: readonly string[]): boolean {
  return secrets.some((secret) => forms(secret).some((form) => text.includes(form)));
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Body fields (JSON members, form fields) that hold a secret are dropped; a raw body that holds one is dropped whole. */
function bodyWithout(
  body: string,
  type: string,
  holds: (text: string) => boolean,
  dropped: string[],
): string | undefined {
  if (!holds(body)) return body;
  if (type.includes('application/x-www-form-urlencoded')) {
    const form = new URLSearchParams(body);
    for (const [name, value] of [...form]) {
      if (!holds(value) && !holds(name)) continue;
      form.delete(name);
      dropped.push(`body field ${name}`);
    }
    return form.toString();
  }
  const json = parseObject(body);
  if (json) {
    for (const [name, value] of Object.entries(json)) {
      if (!holds(JSON.stringify(value)) && !holds(name)) continue;
      delete json[name];
      dropped.push(`body field ${name}`);
    }
    if (!holds(JSON.stringify(json))) return JSON.stringify(json);
  }
  dropped.push('body');
  return undefined;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The forms a secret takes on the wire, as the scrubber knows them. */
function forms(secret: string): string[] {
  if (secret === '') return [];
  return [
    ...new Set([
      secret,
      encodeURIComponent(secret),
      JSON.stringify(secret).slice(1, -1),
      Buffer.from(secret, 'utf8').toString('base64'),
    ]),
  ];
}
