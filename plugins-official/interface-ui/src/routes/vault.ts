import type { SecretBackend } from 'factorly';
import type { Context, Hono } from 'hono';
import type { AppDeps } from '../app-deps.js';
import { html, plural, type Html } from '../html.js';
import { csrfField, layout, notice, scrolling, type PageContext } from '../layout.js';
import { messageOf } from '../messages.js';

const BACKEND = 'vault';
const TIERS = ['project', 'global'] as const;
type Tier = (typeof TIERS)[number];

/** One tier's key names, or why they could not be read (a locked vault). */
interface TierKeys {
  tier: Tier;
  keys?: string[];
  problem?: string;
}

/**
 * The local vault's keys per tier, never a value. Adding, replacing and deleting go through the
 * `SecretBackend` contract (the same calls as `factorly vault set|delete`) behind the UI's session
 * and CSRF checks, and each is recorded as `vault.accessed` with the key and tier only.
 */
export function registerVault(app: Hono, deps: AppDeps): void {
  app.get('/vault', async (c) => vaultPage(c, deps, 200, messagesOf(c)));

  app.post('/vault/set', async (c) => {
    const backend = managed(deps);
    const body = await c.req.parseBody();
    const key = String(body.key ?? '').trim();
    const value = String(body.value ?? '');
    const tier = tierOf(body.tier);
    if (!backend) return vaultPage(c, deps, 404, { errors: [noBackend(deps)] });
    if (!key || !value)
      return vaultPage(
        c,
        deps,
        400,
        { errors: [!key ? 'a key name is required' : `a value for ${key} is required`] },
        { key, tier },
      );
    try {
      if (body.replace !== 'on' && (await backend.list!({ tier })).keys.includes(key)) {
        return await vaultPage(
          c,
          deps,
          409,
          { errors: [`${key} is already in the ${tier} vault: use Replace on its row to change it`] },
          { key, tier },
        );
      }
      const written = await backend.write!(key, value, { tier });
      await deps.log.append([{ type: 'vault.accessed', data: { op: 'set', key, tier: written.tier } }]);
      return c.redirect(`/vault?stored=${encodeURIComponent(key)}&tier=${written.tier}`, 303);
    } catch (error) {
      return vaultPage(c, deps, 400, { errors: [messageOf(error)] }, { key, tier });
    }
  });

  app.post('/vault/delete', async (c) => {
    const backend = managed(deps);
    if (!backend) return vaultPage(c, deps, 404, { errors: [noBackend(deps)] });
    const body = await c.req.parseBody();
    const key = String(body.key ?? '').trim();
    const tier = tierOf(body.tier);
    // The row's Delete asks first; a post that skipped that step deletes nothing.
    if (body.confirmed !== 'yes')
      return vaultPage(c, deps, 400, {
        errors: [`deleting ${key || 'a key'} needs its confirmation: use Delete… on its row`],
      });
    try {
      const removed = await backend.remove!(key, { tier });
      await deps.log.append([{ type: 'vault.accessed', data: { op: 'delete', key, tier: removed.tier } }]);
      return c.redirect(
        `/vault?${removed.existed ? 'deleted' : 'missing'}=${encodeURIComponent(key)}&tier=${removed.tier}`,
        303,
      );
    } catch (error) {
      return vaultPage(c, deps, 400, { errors: [messageOf(error)] });
    }
  });
}

/** The `vault` backend when it can manage keys (list, write, remove). */
function managed(deps: AppDeps): SecretBackend | undefined {
  const backend = deps.backends.get(BACKEND);
  return backend && !backend.readOnly && backend.list && backend.write && backend.remove ? backend : undefined;
}

function noBackend(deps: AppDeps): string {
  return `no "${BACKEND}" secret backend that manages keys is installed (installed: ${deps.backends.keys().join(', ') || 'none'})`;
}

function tierOf(value: unknown): Tier {
  return value === 'global' ? 'global' : 'project';
}

function messagesOf(c: Context): { ok?: string; errors?: string[] } {
  const tier = tierOf(c.req.query('tier'));
  const stored = c.req.query('stored');
  const deleted = c.req.query('deleted');
  const missing = c.req.query('missing');
  if (stored) return { ok: `Stored ${stored} in the ${tier} vault.` };
  if (deleted) return { ok: `Deleted ${deleted} from the ${tier} vault.` };
  if (missing) return { errors: [`${missing} was not in the ${tier} vault; nothing changed.`] };
  return {};
}

async function tiers(deps: AppDeps, backend: SecretBackend): Promise<TierKeys[]> {
  const shown: TierKeys[] = [];
  for (const tier of TIERS) {
    try {
      const listed = await backend.list!({ tier });
      // A project without a project tier (the global config dir) answers from the global tier.
      if (shown.some((s) => s.tier === listed.tier)) continue;
      await deps.log.append([{ type: 'vault.accessed', data: { op: 'list', tier: listed.tier } }]);
      shown.push({ tier: tierOf(listed.tier), keys: [...listed.keys].sort() });
    } catch (error) {
      shown.push({ tier, problem: messageOf(error) });
    }
  }
  return shown;
}

async function vaultPage(
  c: Context,
  deps: AppDeps,
  status: 200 | 400 | 404 | 409,
  messages: { ok?: string; errors?: string[] },
  form: { key?: string; tier?: Tier } = {},
): Promise<Response> {
  const context = deps.page();
  const backend = managed(deps);
  const uses = deps.services.secretUses();
  const listed = backend ? await tiers(deps, backend) : [];
  const body = html`<h1>Vault</h1>
<p class="muted lede">The local vault's keys, as tools use them: <code>{{vault:KEY}}</code>. Values are never shown; each change is recorded with its key and tier, never the value.</p>
${notice('ok', messages.ok ? [messages.ok] : [])}${notice('error', messages.errors ?? [])}
${
  backend
    ? html`${listed.map((t) => tierSection(t, uses, context))}
<section class="panel"><h2>Add a key</h2>${addForm(
        context,
        listed.map((t) => t.tier),
        form,
      )}</section>`
    : html`<p class="empty">${noBackend(deps)}</p>`
}`;
  return c.html(layout('Vault', '/vault', body, context, '').text, status);
}

function tierSection(tier: TierKeys, uses: Map<string, string[]>, context: PageContext): Html {
  const title = tier.tier === 'project' ? 'Project vault' : 'Global vault';
  if (tier.problem)
    return html`<section class="panel" id="tier-${tier.tier}"><h2>${title}</h2>${notice('error', [tier.problem])}</section>`;
  const keys = tier.keys ?? [];
  return html`<section class="panel" id="tier-${tier.tier}"><h2>${title} <small>${plural(keys.length, 'key')}</small></h2>
${
  keys.length === 0
    ? html`<p class="muted">No keys yet.</p>`
    : html`${scrolling(
        `${title} keys`,
        html`<table class="keys"><thead><tr><th>Key</th><th>Used by</th><th class="t-act"><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${keys.map(
          (key) => keyRow(key, tier.tier, uses.get(`vault:${key}`) ?? [], context),
        )}</tbody></table>`,
      )}`
}</section>`;
}

function keyRow(key: string, tier: Tier, tools: string[], context: PageContext): Html {
  return html`<tr id="key-${tier}-${key}">
  <td class="t-key"><code>${key}</code></td>
  <td class="t-uses">${tools.length === 0 ? html`<span class="muted">no tool</span>` : html`<span title="${tools.join(', ')}">${plural(tools.length, 'tool')}</span>: ${tools.map((t, i) => html`${i > 0 ? ', ' : ''}<a href="/tools/${encodeURIComponent(t)}">${t}</a>`)}`}</td>
  <td class="t-act"><div class="row-actions">
    <details class="replace"><summary class="button small secondary">Replace</summary>
      <form method="post" action="/vault/set" class="inline-form">${csrfField(context)}<input type="hidden" name="key" value="${key}"><input type="hidden" name="tier" value="${tier}"><input type="hidden" name="replace" value="on">
        <label>New value for ${key}<input type="password" name="value" required autocomplete="new-password"></label><button type="submit" class="small">Save</button></form>
    </details>
    <details class="confirm-delete"><summary class="button small danger" aria-label="Delete ${key}…">Delete…</summary>
      <form method="post" action="/vault/delete" class="inline-form">${csrfField(context)}<input type="hidden" name="key" value="${key}"><input type="hidden" name="tier" value="${tier}"><input type="hidden" name="confirmed" value="yes">
        <p>Delete <code>${key}</code> from the ${tier} vault?${tools.length > 0 ? ` ${tools.length === 1 ? 'A tool uses' : `${tools.length} tools use`} it and will fail without it.` : ''} This cannot be undone.</p><button type="submit" class="small deny">Delete ${key}</button></form>
    </details>
  </div></td>
</tr>`;
}

function addForm(context: PageContext, tiersShown: readonly Tier[], form: { key?: string; tier?: Tier }): Html {
  return html`<form method="post" action="/vault/set" class="add-key">${csrfField(context)}
  <label>Key<input name="key" value="${form.key ?? ''}" required autocomplete="off" spellcheck="false" placeholder="GITHUB_TOKEN"></label>
  <label>Value<input type="password" name="value" required autocomplete="new-password"></label>
  <label>Tier<select name="tier">${(tiersShown.length > 0 ? tiersShown : TIERS).map((t) => html`<option${t === (form.tier ?? 'project') ? html` selected` : ''}>${t}</option>`)}</select></label>
  <button type="submit">Add</button>
</form>`;
}
