import type { BlueprintPlan, BlueprintSummary, BlueprintToolSummary, BlueprintVaultKey } from 'factorly';
import { html, type Html } from './html.js';
import { badge, csrfField, scrolling, type PageContext } from './layout.js';

/** A blueprint's page href. */
export function blueprintHref(name: string): string {
  return `/blueprints/${encodeURIComponent(name)}`;
}

/** The rows of the installed or the bundled blueprints. */
export function blueprintTable(blueprints: readonly BlueprintSummary[], installed: boolean): Html {
  if (blueprints.length === 0)
    return html`<p class="muted">${installed ? 'None installed yet: pick one below, or import an API.' : 'None.'}</p>`;
  return scrolling(
    installed ? 'Installed blueprints' : 'Available blueprints',
    html`<table class="blueprints"><thead><tr><th>Name</th><th>Tools</th><th>Auth</th><th>${installed ? 'Source' : 'Status'}</th><th>Description</th></tr></thead><tbody>${blueprints.map(
      (b) => html`<tr id="blueprint-${b.name}">
  <td><a href="${blueprintHref(b.name)}">${b.displayName ?? b.name}</a> <small class="muted">${b.version ?? ''}</small></td>
  <td>${b.tools.length}</td>
  <td>${b.authType ? badge(b.authType) : ''}</td>
  <td>${installed ? html`<code>${b.source ?? ''}</code>` : b.installed ? badge('installed', 'ok') : ''}</td>
  <td class="muted">${b.problem ? html`<span class="error-text">${b.problem.split('\n')[0]}</span>` : (b.description ?? '')}</td>
</tr>`,
    )}</tbody></table>`,
  );
}

/** Its tools, the hosts they reach, its keys and how to get them. */
export function blueprintDetails(summary: BlueprintSummary, keys: readonly BlueprintVaultKey[]): Html {
  return html`${summary.description ? html`<p class="lede">${summary.description}</p>` : ''}
<section><h2>Tools <small>${summary.tools.length}</small></h2>${toolTable(summary.tools)}</section>
${summary.oauthProviders.length > 0 ? html`<section><h2>OAuth providers</h2><p>${summary.oauthProviders.map((p) => html`<code>${p}</code> `)}<span class="muted">— log in once installed: <code>factorly auth login ${summary.oauthProviders[0]}</code></span></p></section>` : ''}
<section><h2>Hosts it talks to</h2><ul class="hosts">${summary.hosts.map((h) => html`<li><code>${h.host}</code> <span class="muted">${h.uses.length} use${h.uses.length === 1 ? '' : 's'}</span></li>`)}</ul></section>
<section><h2>Vault keys</h2>${
    keys.length === 0
      ? html`<p class="muted">None.</p>`
      : html`<ul class="keys">${keys.map((k) => html`<li><code>${k.key}</code> ${k.present ? badge('in the vault', 'ok') : badge('missing', 'warn')}</li>`)}</ul>`
  }</section>
${summary.authGuide ? html`<section><h2>How to get the credentials</h2><pre class="guide">${summary.authGuide.trim()}</pre></section>` : ''}`;
}

function toolTable(tools: readonly BlueprintToolSummary[]): Html {
  return scrolling(
    'Tools',
    html`<table class="params"><thead><tr><th>Tool</th><th>Request</th><th>Parameters</th><th>Description</th></tr></thead><tbody>${tools.map(
      (tool) => html`<tr><td><code>${tool.name}</code>${tool.confirm ? html` ${badge('asks first', 'warn')}` : ''}</td>
<td><code>${tool.endpoint}</code></td>
<td>${tool.parameters.map((p) => html`<span class="param" title="${p.description ?? ''}"><code>${p.name}</code><small>${p.type}${p.required && p.default === undefined ? ' · required' : ''}</small></span> `)}</td>
<td class="muted">${tool.description}</td></tr>`,
    )}</tbody></table>`,
  );
}

/** The credentials form of an install: one hidden-input field per key the vault lacks, and the hosts to point elsewhere. */
export function installForm(
  action: string,
  summary: BlueprintSummary,
  keys: readonly BlueprintVaultKey[],
  context: PageContext,
  hidden: Record<string, string> = {},
): Html {
  const missing = keys.filter((k) => !k.present);
  const settable = [
    ...(summary.tools.some((t) => t.type === 'rest') ? ['base_url'] : []),
    ...(summary.oauthProviders.length > 0 ? ['auth_url', 'token_url'] : []),
  ];
  return html`<form method="post" action="${action}" class="install">${csrfField(context)}
${Object.entries(hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
${missing.length > 0 ? html`<fieldset><legend>Credentials (stored in the vault, never shown again; leave one empty to set it later)</legend>${missing.map((k) => html`<label>${k.key}<input type="password" name="key.${k.key}" autocomplete="new-password"></label>`)}</fieldset>` : ''}
<details><summary>Use another host (self-hosted, enterprise)</summary>${settable.map((key) => html`<label>${key}<input name="set.${key}" placeholder="https://…" spellcheck="false"></label>`)}</details>
<button type="submit">Install</button>
</form>`;
}

/** Why a plan cannot be installed, as the CLI lists them. */
export function refusalList(plan: BlueprintPlan): string[] {
  return [
    ...(plan.alreadyInstalled ? [`${plan.name} is already installed: uninstall it first.`] : []),
    ...plan.conflicts.map((c) => `Conflict: ${c}`),
    ...plan.missing.map((m) => `Missing requirement: ${m}`),
    ...plan.problems,
  ];
}

/** `key.NAME` and `set.KEY` fields of a submitted install form. */
export function installFields(body: Record<string, unknown>): {
  keys: Record<string, string>;
  set: Record<string, string>;
} {
  const keys: Record<string, string> = {};
  const set: Record<string, string> = {};
  for (const [field, value] of Object.entries(body)) {
    if (typeof value !== 'string' || value.trim() === '') continue;
    if (field.startsWith('key.')) keys[field.slice(4)] = value;
    else if (field.startsWith('set.')) set[field.slice(4)] = value.trim().replace(/\/+$/, '');
  }
  return { keys, set };
}
