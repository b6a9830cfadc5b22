import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';

export const SESSION_COOKIE = 'factorly_session';

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join('; ');

export interface Session {
  token: string;
  /** Derived from the token: what forms carry, so a leaked page never reveals the session token. */
  csrf: string;
}

export function newSession(token: string): Session {
  return { token, csrf: createHmac('sha256', token).update('factorly-ui csrf').digest('hex') };
}

/** Same-length constant-time comparison of two strings. */
export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Headers every response carries: a strict CSP (scripts and styles from /static only), no framing,
 * no referrer to other sites (the first URL carries the token; `no-referrer` would make browsers send `Origin: null`), no caching of pages that show the log.
 */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  c.header('Content-Security-Policy', CSP);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('X-Frame-Options', 'DENY');
  c.header('Referrer-Policy', 'same-origin');
  c.header('Cache-Control', 'no-store');
};

/**
 * Refuses a Host the server was not addressed by (DNS rebinding), name and port: `hosts()` is the
 * allow-list of net-guard's `servedHosts`, known once the server listens.
 */
export function hostCheck(hosts: () => ReadonlySet<string>): MiddlewareHandler {
  return async (c, next) => {
    const host = (c.req.header('host') ?? '').toLowerCase();
    if (!hosts().has(host))
      return c.text(`forbidden: Host "${host}" is not one this server answers to (see --allowed-host)`, 403);
    await next();
  };
}

/**
 * The session: the first visit with `?token=` gets an HttpOnly, SameSite=Strict cookie and is
 * redirected to the same URL without the token; every other request needs the cookie.
 */
export function sessionCheck(session: Session): MiddlewareHandler {
  return async (c, next) => {
    const url = new URL(c.req.url);
    const offered = url.searchParams.get('token');
    if (offered !== null) {
      if (!sameSecret(offered, session.token)) return unauthorized(c);
      setCookie(c, SESSION_COOKIE, session.token, { httpOnly: true, sameSite: 'Strict', path: '/' });
      url.searchParams.delete('token');
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    if (!sameSecret(getCookie(c, SESSION_COOKIE), session.token)) return unauthorized(c);
    await next();
  };
}

function unauthorized(c: Context): Response {
  return c.text('unauthorized: open the address `factorly ui` printed (it carries the session token)', 401);
}

/**
 * Every request that changes something must come from a page of this server: its Origin (which
 * browsers send on every POST) must be this server's, and it must carry the CSRF token as the
 * `_csrf` form field or the `x-csrf-token` header.
 */
export function csrfCheck(session: Session): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const origin = c.req.header('origin');
    const own = `${new URL(c.req.url).protocol}//${c.req.header('host')}`;
    if (origin !== undefined && origin !== own) return c.text(`forbidden: cross-site request from ${origin}`, 403);
    let given = c.req.header('x-csrf-token');
    if (given === undefined) {
      const type = c.req.header('content-type') ?? '';
      if (type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data')) {
        const field = (await c.req.parseBody())._csrf;
        given = typeof field === 'string' ? field : undefined;
      }
    }
    if (!sameSecret(given, session.csrf))
      return c.text('forbidden: missing or wrong CSRF token (reload the page and try again)', 403);
    await next();
  };
}
