import { describe, expect, it } from 'vitest';
import { checkAuthorizationUrl, refusalOf } from '../src/authorization-probe.js';

const URL_ = new URL('https://as.example/authorize?client_id=c');
/** A fetch that answers every request with `response` (or fails, for a network error). */
const answering =
  (response: Response | Error): typeof fetch =>
  () =>
    response instanceof Error ? Promise.reject(response) : Promise.resolve(response);
const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const page = (status: number, html: string): Response =>
  new Response(html, { status, headers: { 'content-type': 'text/html' } });
const place = { name: 'demo', kind: 'upstream' as const, backend: 'vault', tokenKey: 'demo_oauth' };

describe('asking the authorization server before sending a person there', () => {
  it('reads a refusal from a JSON error or an error page naming an OAuth error code', async () => {
    expect(
      await refusalOf(URL_, answering(json(400, { error: 'invalid_client', error_description: 'Invalid client_id' }))),
    ).toEqual({
      status: 400,
      error: 'invalid_client',
      description: 'Invalid client_id',
    });
    const oidcPage = '<h1>oops! something went wrong</h1><pre><strong>error</strong>: invalid_redirect_uri</pre>';
    expect(await refusalOf(URL_, answering(page(400, oidcPage)))).toEqual({
      status: 400,
      error: 'invalid_redirect_uri',
    });
    // A description is shown on a terminal: control characters go, and it is cut short.
    const loud = await refusalOf(
      URL_,
      answering(json(401, { error: 'invalid_client', error_description: `\u001b[2J${'x'.repeat(500)}` })),
    );
    expect(loud?.description).toMatch(/^ \[2Jx+$/);
    expect(loud?.description).toHaveLength(200);
  });

  it('leaves everything else to the browser: a redirect, a login page, a bot check, a server error, no answer, odd JSON', async () => {
    const others: (Response | Error)[] = [
      new Response(null, { status: 303, headers: { location: '/interaction/x' } }),
      page(200, '<form>Sign in</form>'),
      page(403, 'Checking your browser… invalid_client'),
      page(500, 'invalid_client'),
      new TypeError('fetch failed'),
      json(400, { error: 'Not A Code <script>' }),
      json(400, ['invalid_client']),
      page(400, 'Bad request'),
    ];
    for (const answer of others) expect(await refusalOf(URL_, answering(answer))).toBeUndefined();
  });

  it('lets the SDK register again for a client factorly registered; ends the login for any other refusal', async () => {
    const unknown = () => answering(json(400, { error: 'invalid_client', error_description: 'Invalid client_id' }));
    await expect(checkAuthorizationUrl(URL_, place, { registered: true, fetchFn: unknown() })).rejects.toMatchObject({
      name: 'InvalidClientError',
      message:
        'the authorization server does not know the client registered with it (invalid_client: Invalid client_id)',
    });
    await expect(checkAuthorizationUrl(URL_, place, { registered: false, fetchFn: unknown() })).rejects.toMatchObject({
      code: 'AUTH_FAILED',
      message:
        'upstream MCP server "demo": the authorization server refused the login request (HTTP 400 invalid_client: Invalid client_id) (run: factorly auth login demo)',
    });
    const scope = answering(json(400, { error: 'invalid_request', error_description: 'Unregistered redirect_uri' }));
    await expect(checkAuthorizationUrl(URL_, place, { registered: true, fetchFn: scope })).rejects.toMatchObject({
      code: 'AUTH_FAILED',
    });
    await expect(
      checkAuthorizationUrl(URL_, place, { registered: true, fetchFn: answering(page(200, 'Sign in')) }),
    ).resolves.toBeUndefined();
  });
});
