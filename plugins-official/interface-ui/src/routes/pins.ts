import { FactorlyError } from '@factorly/error-kit';
import type { PinDiff, ToolPinStatus } from '@factorly/plugin-pins/api';
import type { Context, Hono } from 'hono';
import type { AppDeps } from '../app-deps.js';
import { html, when, type Html } from '../html.js';
import { badge, csrfField, layout, notFound, notice, scrolling, type PageContext } from '../layout.js';

// The pins page: every tool's pinned definition, the tools held because a listing changed it, and
// for each held one the diff a person approves or rejects (recorded as `tool.pinned` / `tool.pin_rejected`).

const ACTIVE = '/tools';
const short = (digest: string) => digest.slice(0, 12);
const pinHref = (tool: string) => `/pins/${encodeURIComponent(tool)}`;

export function registerPins(app: Hono, deps: AppDeps): void {
  app.get('/pins', async (c) => {
    const { pins } = deps;
    const context = deps.page();
    if (!pins) return c.html(unavailable(context).text, 404);
    const all = await pins.list();
    const held = all.filter((pin) => pin.state !== 'pinned');
    const decided = c.req.query('approved') ?? c.req.query('rejected');
    const said = c.req.query('approved') ? 'approved: it is pinned and listed again' : 'rejected: it stays held';
    const body = html`<p class="crumbs"><a href="/tools">Tools</a> / Pins</p>
<h1>Pinned definitions</h1>
<p class="muted">The first time factorly sees a tool it pins a digest of what agents are told about it: name, title, description, schemas and annotations. When a listing differs, the tool is held: agents do not see it and its calls are refused until a person approves the change. Tools your own config defines are pinned again when you edit them.</p>
${decided ? notice('ok', [`${decided}: ${said}.`]) : ''}
<section><h2>Held <small>${held.length}</small></h2>${held.length === 0 ? html`<p class="empty">No tool is held.</p>` : held.map(heldCard)}</section>
<section><h2>Pinned <small>${all.length - held.length}</small></h2>${pinnedTable(all.filter((pin) => pin.state === 'pinned'))}</section>`;
    return c.html(layout('Pins', ACTIVE, body, context, '').text);
  });

  app.get('/pins/:tool', (c) => diffPage(c, deps));

  app.post('/pins/:tool/:answer{approve|reject}', async (c) => {
    const { pins } = deps;
    if (!pins) return c.html(unavailable(deps.page()).text, 404);
    const tool = c.req.param('tool');
    const form = await c.req.parseBody();
    const digest = typeof form.digest === 'string' && form.digest !== '' ? form.digest : undefined;
    const approving = c.req.param('answer') === 'approve';
    try {
      await (approving ? pins.approve(tool, { by: 'ui', digest }) : pins.reject(tool, { by: 'ui', digest }));
    } catch (error) {
      if (!FactorlyError.isInstance(error)) throw error;
      // The definition changed again, or was decided elsewhere, since the page was shown.
      return diffPage(c, deps, [error.message]);
    }
    return c.redirect(`/pins?${approving ? 'approved' : 'rejected'}=${encodeURIComponent(tool)}`, 303);
  });
}

/** One held tool, waiting for a person. */
function heldCard(pin: ToolPinStatus): Html {
  return html`<article class="approval" id="held-${pin.tool}">
  <h3><a href="${pinHref(pin.tool)}">${pin.tool}</a> ${badge(pin.state)}</h3>
  <p class="muted">from ${pin.source} · ${pin.pin ? `pinned ${short(pin.pin.digest)}` : 'new, never pinned'}</p>
  <ul>${pin.held.map((h) => html`<li><code>${short(h.digest)}</code> ${h.cause.replace('_', ' ')}${h.sessionId ? html` in session <code>${h.sessionId}</code>` : ' for every agent'} · seen ${when(h.at)}${h.rejected ? ' · rejected' : ''}</li>`)}</ul>
  <p><a class="button secondary" href="${pinHref(pin.tool)}">Review the change</a></p>
</article>`;
}

function pinnedTable(pins: readonly ToolPinStatus[]): Html {
  if (pins.length === 0)
    return html`<p class="empty">Nothing is pinned yet: pins are recorded when tools are first listed or called.</p>`;
  return scrolling(
    'Pinned definitions',
    html`<table class="pins"><thead><tr><th>Tool</th><th>Source</th><th>Digest</th><th>Pinned</th></tr></thead><tbody>${pins.map(
      (pin) =>
        html`<tr id="pin-${pin.tool}"><td>${pin.tool}</td><td>${pin.source}</td><td><code>${pin.pin ? short(pin.pin.digest) : '—'}</code></td><td>${pin.pin ? html`${pin.pin.cause.replace('_', ' ')}${pin.pin.by ? ` by ${pin.pin.by}` : ''} · ${when(pin.pin.at)}` : ''}</td></tr>`,
    )}</tbody></table>`,
  );
}

/** A held tool's diff, with the decision forms bound to the digest shown. */
async function diffPage(c: Context, deps: AppDeps, errors: string[] = []): Promise<Response> {
  const { pins } = deps;
  const context = deps.page();
  if (!pins) return c.html(unavailable(context).text, 404);
  const tool = c.req.param('tool') ?? '';
  let diff: PinDiff;
  try {
    diff = await pins.diff(tool, c.req.query('digest'));
  } catch (error) {
    if (!FactorlyError.isInstance(error)) throw error;
    const message = html`${error.message}. <a href="/pins">All pins</a>`;
    return c.html(notFound('Not held', message, ACTIVE, context).text, 404);
  }
  const { listed, pinned } = diff;
  const where = listed.sessionId ? html`in session <code>${listed.sessionId}</code>` : 'for every agent';
  const body = html`<p class="crumbs"><a href="/tools">Tools</a> / <a href="/pins">Pins</a> / ${tool}</p>
<h1>${tool} ${badge('held')}</h1>
${notice('error', errors)}
<p>${pinned ? html`Its source now lists a definition (<code>${short(listed.digest)}</code>) that differs from the one pinned (<code>${short(pinned.digest)}</code>), ${where}.` : html`A new tool (<code>${short(listed.digest)}</code>) from a source that pins strictly, ${where}.`} Read what changed before agents see it.</p>
<pre class="diff">${diffLines(diff.diff)}</pre>
<div class="actions">
  ${decisionForm(tool, listed.digest, 'approve', 'Approve and pin', context)}
  ${decisionForm(tool, listed.digest, 'reject', 'Reject', context)}
</div>
<p class="muted">Approve pins this definition: the tool is listed and callable again. Reject keeps it held until its source lists the pinned definition again.</p>`;
  return c.html(layout(`Pin of ${tool}`, ACTIVE, body, context, '').text, errors.length > 0 ? 409 : 200);
}

function decisionForm(tool: string, digest: string, answer: string, label: string, context: PageContext): Html {
  return html`<form method="post" action="${pinHref(tool)}/${answer}">${csrfField(context)}<input type="hidden" name="digest" value="${digest}"><button type="submit" class="${answer === 'approve' ? 'approve' : 'deny'}">${label}</button></form>`;
}

/** The unified diff, each line marked as added, removed or a hunk header. */
function diffLines(text: string): Html[] {
  return text.split('\n').map((line) => {
    const kind = line.startsWith('@@')
      ? 'hunk'
      : line.startsWith('+') && !line.startsWith('+++')
        ? 'add'
        : line.startsWith('-') && !line.startsWith('---')
          ? 'del'
          : '';
    return html`<span${kind ? html` class="${kind}"` : ''}>${line}</span>\n`;
  });
}

function unavailable(context: PageContext): Html {
  return notFound('Pins are off', html`The pins plugin is not loaded in this factorly.`, ACTIVE, context);
}
