import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { FactorlyError } from '@factorly/error-kit';

/** How long a login waits for the person to finish at the authorization server. */
export const LOGIN_TIMEOUT_MS = 120_000;

/** The loopback listener a login's redirect lands on (RFC 8252 §7.3: an IP literal, not `localhost`). */
export interface Callback {
  redirectUri: string;
  /** The query of the redirect that carried the expected `state`. */
  result: Promise<URLSearchParams>;
  close(): void;
}

const PAGE = (text: string, head = ''): string =>
  `<!doctype html><html lang="en"><meta charset="utf-8"><title>factorly</title>${head}<body><p>${text}</p></body></html>`;

/**
 * The page that sends the browser on to `to` (the web UI). A page of this site leads there, not a
 * redirect: the UI's session cookie is SameSite=Strict, and a redirect chain that passed through the
 * authorization server's site would arrive without it.
 */
function onwardPage(to: string): string {
  const href = to.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return PAGE(`Back to <a href="${href}">factorly</a>…`, `<meta http-equiv="refresh" content="0;url=${href}">`);
}

/**
 * Listens on 127.0.0.1:`port` (another free port when it is taken) for `/callback`; a request whose
 * `state` differs (compared in constant time) is answered 400 and ignored, so a stray or forged
 * redirect cannot end the login. Ends with a timeout after `timeoutMs`. With `returnTo`, the page
 * sends the browser there (the web UI's, which shows how the login ended).
 */
export async function listenForCallback(
  port: number,
  state: string,
  options: { timeoutMs?: number; signal?: AbortSignal; returnTo?: string } = {},
): Promise<Callback> {
  const { signal, returnTo } = options;
  let settle!: { resolve: (query: URLSearchParams) => void; reject: (error: Error) => void };
  const result = new Promise<URLSearchParams>((resolve, reject) => (settle = { resolve, reject }));
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') return void response.writeHead(404).end();
    if (!sameState(url.searchParams.get('state'), state)) {
      response
        .writeHead(400, { 'content-type': 'text/html; charset=utf-8' })
        .end(PAGE('This login link does not match the login factorly is waiting for.'));
      return;
    }
    const failed = url.searchParams.has('error');
    const page = returnTo
      ? onwardPage(returnTo)
      : PAGE(failed ? 'Authorization failed: see the terminal.' : 'Logged in. You can close this tab.');
    response.writeHead(failed ? 400 : 200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    settle.resolve(url.searchParams);
  });
  const bound = await listen(server, port);
  const timer = setTimeout(
    () => settle.reject(new FactorlyError('AUTH_FAILED', 'authorization timed out')),
    options.timeoutMs ?? LOGIN_TIMEOUT_MS,
  );
  const onAbort = (): void => settle.reject(new FactorlyError('AUTH_FAILED', 'login cancelled'));
  signal?.addEventListener('abort', onAbort, { once: true });
  const close = (): void => {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    server.close();
    server.closeAllConnections();
  };
  void result.then(close, close);
  return { redirectUri: `http://127.0.0.1:${bound}/callback`, result, close };
}

function sameState(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The port bound: `port`, or any free one when it is taken. */
async function listen(server: Server, port: number): Promise<number> {
  const attempt = (wanted: number): Promise<number> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(wanted, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as { port: number }).port);
      });
    });
  try {
    return await attempt(port);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    return attempt(0);
  }
}
