import { html, type Html } from './html.js';

export interface PageContext {
  /** The CSRF token every form carries. */
  csrf: string;
  /** Pending confirmations, for the nav badge. */
  pending: number;
  /** Status badges shown at the end of the header on every page (each one small and linked). */
  badges?: readonly Html[];
}

const NAV = [
  ['/dashboard', 'Dashboard'],
  ['/history', 'History'],
  ['/approvals', 'Approvals'],
  ['/tools', 'Tools'],
  ['/blueprints', 'Blueprints'],
  ['/vault', 'Vault'],
  ['/auth', 'Auth'],
  ['/audit', 'Audit'],
] as const;

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
<header class="top">
  <a class="brand" href="/dashboard">factorly</a>
  <nav>${NAV.map(
    ([href, label]) =>
      html`<a href="${href}"${active === href ? html` class="active" aria-current="page"` : ''}>${label}${
        href === '/approvals'
          ? html` <span id="pending-count" class="count${context.pending === 0 ? ' zero' : ''}">${context.pending}</span>`
          : ''
      }</a>`,
  )}</nav>
  <div class="top-end">${live ? html`<span class="live-on" title="This page updates as calls happen">Live</span><a class="reload" href="">Reload</a>` : ''}${context.badges ?? []}</div>
</header>
<main>
${body}
</main>
</body>
</html>`;
}

/** A hidden CSRF field for a form. */
export function csrfField(context: PageContext): Html {
  return html`<input type="hidden" name="_csrf" value="${context.csrf}">`;
}

export function badge(text: string, kind = text): Html {
  return html`<span class="badge badge-${kind.replace(/[^a-z0-9_-]/gi, '')}">${text}</span>`;
}

export function notice(kind: 'error' | 'ok' | 'info', lines: readonly string[]): Html {
  if (lines.length === 0) return html``;
  return html`<div class="notice notice-${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${lines.map((line) => html`<p>${line}</p>`)}</div>`;
}

/** The page for a name the log or the config does not know. */
export function notFound(title: string, message: Html, active: string, context: PageContext): Html {
  return layout('Not found', active, html`<h1>${title}</h1><p>${message}</p>`, context, '');
}
