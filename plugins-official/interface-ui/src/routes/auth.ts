import type { OAuthProviderStatus, SourceStatus } from 'factorly';
import type { Context, Hono } from 'hono';
import type { AppDeps } from '../app-deps.js';
import { html, type Html } from '../html.js';
import { badge, csrfField, layout, notice, scrolling, type PageContext } from '../layout.js';
import { messageOf } from '../messages.js';

/** A token this close to its expiry shows as expiring (it is refreshed on use, or needs a login). */
const EXPIRING_MS = 5 * 60_000;

interface Row {
  name: string;
  status?: OAuthProviderStatus;
  problem?: string;
  /** For an upstream: its server's state, as `factorly tools` shows it. */
  source?: SourceStatus;
  usedBy: string[];
}

interface Messages {
  ok?: string;
  errors?: string[];
}

/**
 * The logins tools need: each OAuth provider and upstream MCP server, where its login stands (never
 * a token), the tools that use it, and Log in (the authorization page opens, its callback lands back
 * here), Refresh and Log out, the same calls as `factorly auth login|refresh|logout`.
 */
export function registerAuth(app: Hono, deps: AppDeps): void {
  app.get('/auth', async (c) => authPage(c, deps, 200, await landed(c, deps)));

  app.post('/auth/login', async (c) => {
    const name = await nameOf(c, deps);
    if (name === undefined) return authPage(c, deps, 404, { errors: [UNKNOWN] });
    const returnTo = `${new URL(c.req.url).origin}/auth?done=${encodeURIComponent(name)}`;
    const started = await deps.logins!.start(name, returnTo);
    if ('error' in started) return authPage(c, deps, 400, { errors: [started.error] });
    // A page of this server leads on: the CSP's form-action would stop a redirect out of a form's POST.
    const body = html`<h1>Log in to ${name}</h1><p class="lede">Opening the authorization page… <a id="authorize" href="${started.url}">Continue</a></p>`;
    const head = html`<meta http-equiv="refresh" content="0;url=${started.url}">`;
    return c.html(layout(`Log in to ${name}`, '/auth', html`${head}${body}`, deps.page(), '').text);
  });

  app.post('/auth/refresh', async (c) =>
    act(c, deps, async (name) => {
      await deps.oauth!.refresh(name);
      return `refreshed=${encodeURIComponent(name)}`;
    }),
  );

  app.post('/auth/logout', async (c) =>
    act(c, deps, async (name) => {
      const removed = await deps.oauth!.logout(name);
      return `${removed ? 'loggedout' : 'notloggedin'}=${encodeURIComponent(name)}`;
    }),
  );
}

/** Runs an action on a known login and redirects to the page with its outcome; an error is shown on the page. */
async function act(c: Context, deps: AppDeps, action: (name: string) => Promise<string>): Promise<Response> {
  const name = await nameOf(c, deps);
  if (name === undefined) return authPage(c, deps, 404, { errors: [UNKNOWN] });
  try {
    return c.redirect(`/auth?${await action(name)}`, 303);
  } catch (error) {
    return authPage(c, deps, 400, { errors: [messageOf(error)] });
  }
}

async function nameOf(c: Context, deps: AppDeps): Promise<string | undefined> {
  const name = String((await c.req.parseBody()).name ?? '');
  return deps.oauth?.names().includes(name) ? name : undefined;
}

const UNKNOWN = 'no OAuth provider or upstream MCP server of that name is configured';

/** What the page says after an action, or (`done`) once the login the browser comes back from has ended. */
async function landed(c: Context, deps: AppDeps): Promise<Messages> {
  const done = c.req.query('done');
  if (done !== undefined) {
    const end = await deps.logins?.ended(done);
    if (!end) return { errors: [`no login for ${done} is in progress here; try Log in again`] };
    return 'error' in end ? { errors: [end.error] } : { ok: `Logged in to ${done}.` };
  }
  const [[kind, name] = []] = ['refreshed', 'loggedout', 'notloggedin']
    .map((key) => [key, c.req.query(key)])
    .filter(([, value]) => value !== undefined);
  if (kind === 'refreshed') return { ok: `Refreshed the token of ${name}.` };
  if (kind === 'loggedout') return { ok: `Logged out of ${name}: its tokens were removed.` };
  if (kind === 'notloggedin') return { errors: [`${name} was not logged in; nothing changed.`] };
  return {};
}

async function rows(deps: AppDeps): Promise<Row[]> {
  const oauth = deps.oauth!;
  const sources = deps.services.sources();
  const secretUses = deps.services.secretUses();
  const tools = deps.gateway.tools();
  return Promise.all(
    oauth.names().map(async (name): Promise<Row> => {
      const source = sources.find((s) => s.name === name && s.type === 'mcp');
      const servedBy = tools.filter((tool) => tool.type === 'mcp' && tool.spec.server === name).map((t) => t.name);
      const row: Row = {
        name,
        ...(source ? { source } : {}),
        usedBy: [...(secretUses.get(`oauth:${name}`) ?? []), ...servedBy],
      };
      try {
        return { ...row, status: await oauth.status(name) };
      } catch (error) {
        return { ...row, problem: messageOf(error) };
      }
    }),
  );
}

async function authPage(c: Context, deps: AppDeps, status: 200 | 400 | 404, messages: Messages): Promise<Response> {
  const context = deps.page();
  const body = deps.oauth
    ? await table(deps, context)
    : html`<p class="empty">OAuth is not available: the oauth plugin (@factorly/plugin-oauth) is not installed.</p>`;
  const page = html`<h1>Auth</h1>
<p class="muted lede">The logins your tools need: OAuth providers (<code>oauth_providers</code>) and upstream MCP servers reached over HTTP. Tokens stay in the vault; this page never shows one.</p>
${notice('ok', messages.ok ? [messages.ok] : [])}${notice('error', messages.errors ?? [])}${body}`;
  return c.html(layout('Auth', '/auth', page, context, '').text, status);
}

async function table(deps: AppDeps, context: PageContext): Promise<Html> {
  const listed = await rows(deps);
  if (listed.length === 0)
    return html`<p class="empty">No logins configured: add <code>oauth_providers</code>, or a <code>type: mcp</code> tool with a <code>url</code>, to your config.</p>`;
  return html`<section class="panel">${scrolling(
    'Logins',
    html`<table class="keys logins"><thead><tr><th>Name</th><th>Login</th><th>Server</th><th>Used by</th><th class="t-act"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${listed.map(
      (row) => loginRow(row, context),
    )}</tbody></table>`,
  )}</section>`;
}

function loginRow(row: Row, context: PageContext): Html {
  const { status } = row;
  const upstream = status?.kind === 'upstream';
  const loggedIn = status !== undefined && status.state !== 'not_authenticated';
  return html`<tr id="login-${row.name}" data-kind="${status?.kind ?? ''}">
  <td class="t-key"><code>${row.name}</code> ${badge(upstream ? 'mcp' : 'oauth', upstream ? 'mcp' : 'rest')}${status?.url ? html`<br><span class="muted">${status.url}</span>` : ''}</td>
  <td class="t-login">${status ? loginState(status) : html`${badge('error', 'error')} <span class="muted">${row.problem ?? ''}</span>`}</td>
  <td class="t-server">${upstream ? serverState(row.source) : html`<span class="muted">—</span>`}</td>
  <td class="t-uses">${row.usedBy.length === 0 ? html`<span class="muted">no tool</span>` : html`<span title="${row.usedBy.join(', ')}">used by ${row.usedBy.length} tool${row.usedBy.length === 1 ? '' : 's'}</span>`}</td>
  <td class="t-act"><div class="row-actions">
    ${action('/auth/login', row.name, loggedIn ? 'Log in again' : 'Log in', context, loggedIn ? 'secondary' : '')}
    ${status?.refreshable ? action('/auth/refresh', row.name, 'Refresh', context, 'secondary') : ''}
    ${loggedIn ? action('/auth/logout', row.name, 'Log out', context, 'deny') : ''}
  </div></td>
</tr>`;
}

function action(path: string, name: string, label: string, context: PageContext, kind: string): Html {
  return html`<form method="post" action="${path}">${csrfField(context)}<input type="hidden" name="name" value="${name}"><button type="submit" class="small${kind ? ` ${kind}` : ''}" aria-label="${label}: ${name}">${label}</button></form>`;
}

/** valid / expiring / expired / not authenticated / invalid, with when it expires. */
export function loginState(status: OAuthProviderStatus, now = Date.now()): Html {
  const left = status.expiresAt === undefined ? undefined : status.expiresAt - now;
  switch (status.state) {
    case 'valid':
      return left !== undefined && left < EXPIRING_MS
        ? html`${badge('expiring', 'timeout')} <span class="muted">in ${minutes(left)}${status.refreshable ? ', refreshed on use' : ''}</span>`
        : html`${badge('valid', 'success')} <span class="muted">${left === undefined ? 'no expiry' : `expires in ${minutes(left)}`}</span>`;
    case 'expired':
      return status.refreshable
        ? html`${badge('expired', 'timeout')} <span class="muted">refreshed on next use</span>`
        : html`${badge('expired', 'error')} <span class="muted">log in again</span>`;
    case 'invalid':
      return html`${badge('invalid', 'error')} <span class="muted">the stored ${status.storedAs} is not a token bundle</span>`;
    default:
      return badge('not authenticated', 'error');
  }
}

/** An upstream's server: connected, needs login, failing, retrying; why, when it is not connected, on hover. */
function serverState(source: SourceStatus | undefined): Html {
  if (!source) return html`<span class="muted">not listed</span>`;
  const kinds: Record<SourceStatus['state'], string> = {
    connected: 'success',
    needs_login: 'error',
    failing: 'error',
    retrying: 'running',
  };
  const label = source.state === 'needs_login' ? 'needs login' : source.state;
  return html`<span title="${source.reason ?? ''}">${badge(label, kinds[source.state])}</span>`;
}

function minutes(ms: number): string {
  if (ms < 60_000) return `${Math.max(0, Math.round(ms / 1000))}s`;
  const minutes = Math.round(ms / 60_000);
  return minutes < 120 ? `${minutes}m` : `${Math.round(minutes / 60)}h`;
}
