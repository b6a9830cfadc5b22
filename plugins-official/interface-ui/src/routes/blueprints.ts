import type { BlueprintPlan, BlueprintRequest } from 'factorly';
import type { Context, Hono } from 'hono';
import type { AppDeps } from '../app-deps.js';
import {
  blueprintDetails,
  blueprintHref,
  blueprintTable,
  installFields,
  installForm,
  refusalList,
} from '../blueprint-view.js';
import { html, type Html } from '../html.js';
import { badge, csrfField, layout, notice, notFound } from '../layout.js';
import { messageOf } from '../messages.js';

const ACTIVE = '/blueprints';

/**
 * Blueprints: the installed ones and the ones factorly ships, a blueprint's tools, hosts, vault keys
 * and auth guide, installing one with its credentials (stored in the vault, never shown again) and
 * uninstalling it; a pasted blueprint goes through the same plan first. Every change goes through
 * `HostServices`, the same functions as `factorly blueprint`, and is served at once.
 */
export function registerBlueprints(app: Hono, deps: AppDeps): void {
  app.get('/blueprints', async (c) => listPage(c, deps, 200, messagesOf(c)));

  app.post('/blueprints/paste', async (c) => {
    const body = await c.req.parseBody();
    const text = String(body.yaml ?? '');
    if (text.trim() === '') return listPage(c, deps, 400, { errors: ['paste a blueprint (YAML) to install'] });
    return planPage(c, deps, { text, label: 'pasted' }, pasted(text));
  });

  app.post('/blueprints/paste/install', async (c) => {
    const body = await c.req.parseBody();
    const text = String(body.text ?? '');
    return install(c, deps, { text, label: 'pasted' }, body, pasted(text));
  });

  app.get('/blueprints/:name', async (c) => detailPage(c, deps));

  app.post('/blueprints/:name/install', async (c) => {
    const name = c.req.param('name');
    return install(c, deps, { source: name }, await c.req.parseBody(), { action: `${blueprintHref(name)}/install` });
  });

  app.post('/blueprints/:name/uninstall', async (c) => {
    const name = c.req.param('name');
    try {
      const removed = await deps.services.uninstallBlueprint(name);
      return c.redirect(`/blueprints?uninstalled=${encodeURIComponent(removed.name)}`, 303);
    } catch (error) {
      return listPage(c, deps, 404, { errors: [messageOf(error)] });
    }
  });
}

/** Where an install form posts, and what it carries along. */
interface FormTarget {
  action: string;
  hidden?: Record<string, string>;
}

const pasted = (text: string): FormTarget => ({ action: '/blueprints/paste/install', hidden: { text } });

function messagesOf(c: Context): { ok?: string; errors?: string[] } {
  const installed = c.req.query('installed');
  const uninstalled = c.req.query('uninstalled');
  const missing = c.req.query('missing');
  if (installed)
    return {
      ok: `Installed ${installed}: its tools are served now.${missing ? ` Still missing in the vault: ${missing}.` : ''}`,
    };
  if (uninstalled) return { ok: `Uninstalled ${uninstalled}. Its vault keys were kept.` };
  return {};
}

async function listPage(
  c: Context,
  deps: AppDeps,
  status: 200 | 400 | 404,
  messages: { ok?: string; errors?: string[] },
): Promise<Response> {
  const context = deps.page();
  const { installed, bundled } = await deps.services.blueprints();
  const body = html`<div class="page-head"><h1>Blueprints</h1><a class="button secondary" href="/blueprints/import">Import an OpenAPI spec</a></div>
<p class="muted lede">Ready-made integrations: each brings a service's tools, the hosts they reach and the vault keys they need. Tools that change something ask for your approval before each call.</p>
${notice('ok', messages.ok ? [messages.ok] : [])}${notice('error', messages.errors ?? [])}
<section class="panel" id="installed"><h2>Installed <small>${installed.length}</small></h2>${blueprintTable(installed, true)}</section>
<section class="panel" id="available"><h2>Available <small>${bundled.length}</small></h2>${blueprintTable(bundled, false)}</section>
<section class="panel"><h2>Install a blueprint from YAML</h2>
<form method="post" action="/blueprints/paste" class="paste">${csrfField(context)}
<label>Blueprint<textarea name="yaml" rows="8" spellcheck="false" placeholder="name: acme&#10;tools:&#10;  acme.list: {type: rest, …}"></textarea></label>
<button type="submit" class="secondary">Review</button></form></section>`;
  return c.html(layout('Blueprints', ACTIVE, body, context, '').text, status);
}

async function detailPage(c: Context, deps: AppDeps): Promise<Response> {
  const name = c.req.param('name') ?? '';
  let summary: Awaited<ReturnType<AppDeps['services']['blueprint']>>;
  try {
    summary = await deps.services.blueprint(name);
  } catch (error) {
    return c.html(
      notFound(
        'No such blueprint',
        html`${messageOf(error)}. <a href="/blueprints">All blueprints</a>`,
        ACTIVE,
        deps.page(),
      ).text,
      404,
    );
  }
  const context = deps.page();
  const action = summary.file
    ? html`<form method="post" action="${blueprintHref(name)}/uninstall" class="uninstall">${csrfField(context)}<button type="submit" class="deny">Uninstall</button> <span class="muted">Its tools stop at once; its vault keys are kept.</span></form>`
    : html`<section class="panel" id="install"><h2>Install</h2>${installForm(`${blueprintHref(name)}/install`, summary, summary.vaultKeyStates, context)}</section>`;
  const body = html`<p class="crumbs"><a href="/blueprints">Blueprints</a> / ${name}</p>
<div class="page-head"><h1>${summary.displayName ?? summary.name} ${summary.version ? html`<small>${summary.version}</small>` : ''} ${summary.file ? badge('installed', 'ok') : ''}</h1></div>
${summary.file ? html`<p class="muted">Installed in <code>${summary.file}</code>${summary.source ? html` from <code>${summary.source}</code>` : ''}.</p>` : ''}
${blueprintDetails(summary, summary.vaultKeyStates)}
${action}`;
  return c.html(layout(summary.displayName ?? summary.name, ACTIVE, body, context, '').text);
}

/** A pasted blueprint's plan, before anything is written. */
async function planPage(
  c: Context,
  deps: AppDeps,
  request: BlueprintRequest,
  target: FormTarget,
  errors: string[] = [],
  status: 200 | 400 | 409 = 200,
): Promise<Response> {
  let plan: BlueprintPlan;
  try {
    plan = await deps.services.planBlueprint(request);
  } catch (error) {
    return listPage(c, deps, 400, { errors: [messageOf(error)] });
  }
  const refused = refusalList(plan);
  return c.html(
    planView(deps, plan, target, [...errors, ...refused]).text,
    errors.length > 0 ? status : refused.length > 0 ? 409 : 200,
  );
}

function planView(deps: AppDeps, plan: BlueprintPlan, target: FormTarget, errors: string[]): Html {
  const context = deps.page();
  const body = html`<p class="crumbs"><a href="/blueprints">Blueprints</a> / ${plan.name}</p>
<h1>Install ${plan.displayName ?? plan.name}?</h1>
<p class="muted">Nothing is written until you press Install. It would be written to <code>${plan.file}</code>.</p>
${notice('error', errors)}
${blueprintDetails(plan, plan.vaultKeyStates)}
<section class="panel" id="install"><h2>Install</h2>${installForm(target.action, plan, plan.vaultKeyStates, context, target.hidden)}</section>`;
  return layout(`Install ${plan.name}`, ACTIVE, body, context, '');
}

/** Installs a bundled or pasted blueprint with the credentials of its form; back to the form, saying why, when refused. */
async function install(
  c: Context,
  deps: AppDeps,
  request: BlueprintRequest,
  body: Record<string, unknown>,
  target: FormTarget,
): Promise<Response> {
  const { keys, set } = installFields(body);
  const withSet = { ...request, set };
  try {
    const result = await deps.services.installBlueprint(withSet, keys);
    const missing =
      result.missingKeys.length > 0 ? `&missing=${encodeURIComponent(result.missingKeys.join(', '))}` : '';
    return c.redirect(`/blueprints?installed=${encodeURIComponent(result.plan.name)}${missing}`, 303);
  } catch (error) {
    return planPage(c, deps, withSet, target, [messageOf(error)], 409);
  }
}
