import { html, type Html } from './html.js';

export interface PageContext {
  /** The CSRF token every form carries. */
  csrf: string;
  /** Pending confirmations, for the nav badge. */
  pending: number;
  /** Status badges shown at the end of the header on every page (each one small and linked). */
  badges?: readonly Html[];
}

/**
 * The header's navigation: one entry per section, in this order. A new section adds its entry here
 * and passes its `href` as `active` to `layout`; the header's styles need nothing more.
 */
export const NAV: readonly (readonly [href: string, label: string])[] = [
  ['/dashboard', 'Dashboard'],
  ['/history', 'History'],
  ['/agents', 'Agents'],
  ['/approvals', 'Approvals'],
  ['/tools', 'Tools'],
  ['/blueprints', 'Blueprints'],
  ['/vault', 'Vault'],
  ['/auth', 'Auth'],
  ['/audit', 'Audit'],
];

/**
 * The page shell. Scripts and styles come from /static only (the CSP allows nothing inline);
 * `live` names the server-sent-events URL the page follows, if any. A live page works without
 * JavaScript too: its header then offers a reload link instead of the live indicator.
 */
export function layout(title: string, active: string, body: Html, context: PageContext, live = '/events'): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · factorly</title>
<link rel="stylesheet" href="/static/app.css">
<script src="/static/app.js" defer></script>
</head>
<body data-live="${live}" data-csrf="${context.csrf}">
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="/dashboard">factorly</a>
  <nav aria-label="Sections">${NAV.map(
    ([href, label]) =>
      html`<a href="${href}"${active === href ? html` class="active" aria-current="page"` : ''}>${label}${
        href === '/approvals'
          ? html` <span id="pending-count" class="count${context.pending === 0 ? ' zero' : ''}">${context.pending}</span>`
          : ''
      }</a>`,
  )}</nav>
  <div class="top-end">${live ? html`<span class="live-on" title="This page updates as calls happen">Live</span><a class="reload" href="">Reload</a>` : ''}${context.badges ?? []}</div>
</header>
<main id="main" tabindex="-1">
${body}
</main>
</body>
</html>`;
}

/**
 * A table that may scroll sideways on a narrow screen, in a region named `label` that a keyboard can
 * focus and scroll. Every table of the UI goes in one.
 */
export function scrolling(label: string, table: Html): Html {
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${label}">${table}</div>`;
}

/** A hidden CSRF field for a form. */
export function csrfField(context: PageContext): Html {
  return html`<input type="hidden" name="_csrf" value="${context.csrf}">`;
}

export function badge(text: string, kind = text): Html {
  return html`<span class="badge badge-${kind.replace(/[^a-z0-9_-]/gi, '')}">${text}</span>`;
}

export function notice(kind: 'error' | 'ok' | 'info' | 'warn', lines: readonly string[]): Html {
  if (lines.length === 0) return html``;
  return html`<div class="notice notice-${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${lines.map(noticeLine)}</div>`;
}

/** A line of a notice; a message of several lines (a YAML error and the lines it points at) keeps them, as written. */
function noticeLine(line: string): Html {
  const at = line.indexOf('\n');
  if (at < 0) return html`<p>${line}</p>`;
  return html`<p>${line.slice(0, at)}</p><pre class="notice-detail" tabindex="0">${line.slice(at + 1).replace(/^\n+/, '')}</pre>`;
}

/** The page for a name the log or the config does not know, or an address no page has (HTTP 404). */
export function notFound(title: string, message: Html, active: string, context: PageContext): Html {
  return layout(
    'Not found',
    active,
    html`<section class="panel not-found"><h1>${title}</h1><p>${message}</p>
<p class="muted">Every page is in the menu above; <a href="/dashboard">the dashboard</a> is where the UI starts.</p></section>`,
    context,
    '',
  );
}
