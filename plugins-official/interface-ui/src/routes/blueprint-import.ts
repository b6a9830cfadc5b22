import type { ImportOptions, SpecBlueprint } from 'factorly';
import type { Context, Hono } from 'hono';
import type { AppDeps } from '../app-deps.js';
import { installFields } from '../blueprint-view.js';
import { html } from '../html.js';
import { badge, csrfField, layout, notice, scrolling } from '../layout.js';
import { messageOf } from '../messages.js';

const ACTIVE = '/blueprints';
/** The largest spec the page takes: GitHub's and Stripe's whole descriptions fit. */
const SPEC_CAP = 16 * 1024 * 1024;

/** What the import form carries from step to step. */
interface ImportForm {
  spec: string;
  label: string;
  prefix: string;
  baseUrl: string;
}

/**
 * Import: upload or paste an OpenAPI 3.x or Swagger 2.0 description, preview every operation as the
 * tool it becomes (name, request, typed parameters), pick the ones to keep, give the credentials
 * its security schemes need, and import: the same import and install as `factorly tools import
 * openapi`, written as a blueprint. A pasted spec's `$ref`s must stay inside it.
 */
export function registerImport(app: Hono, deps: AppDeps): void {
  app.get('/blueprints/import', (c) => formPage(c, deps, 200, { spec: '', label: '', prefix: '', baseUrl: '' }));

  app.post('/blueprints/import/preview', async (c) => {
    const form = await readForm(c);
    if (typeof form === 'string') return formPage(c, deps, 400, emptyForm(), [form]);
    try {
      const made = await deps.services.importSpec({ text: form.spec, label: form.label }, options(form));
      return previewPage(c, deps, form, made);
    } catch (error) {
      return formPage(c, deps, 400, form, [messageOf(error)]);
    }
  });

  app.post('/blueprints/import/install', async (c) => {
    const body = await c.req.parseBody({ all: true });
    const form = { ...emptyForm(), ...fields(body) };
    const picked = ([] as unknown[]).concat(body.op ?? []).map(String);
    if (picked.length === 0) return formPage(c, deps, 400, form, ['pick at least one operation to import']);
    try {
      const made = await deps.services.importSpec(
        { text: form.spec, label: form.label },
        { ...options(form), select: picked },
      );
      const { keys } = installFields(body as Record<string, unknown>);
      const result = await deps.services.installBlueprint({ text: made.yaml, label: `openapi:${form.label}` }, keys);
      const missing =
        result.missingKeys.length > 0 ? `&missing=${encodeURIComponent(result.missingKeys.join(', '))}` : '';
      return c.redirect(`/blueprints?installed=${encodeURIComponent(result.plan.name)}${missing}`, 303);
    } catch (error) {
      return formPage(c, deps, 409, form, [messageOf(error)]);
    }
  });
}

function emptyForm(): ImportForm {
  return { spec: '', label: 'pasted spec', prefix: '', baseUrl: '' };
}

function options(form: ImportForm): ImportOptions {
  return { ...(form.prefix ? { prefix: form.prefix } : {}), ...(form.baseUrl ? { baseUrl: form.baseUrl } : {}) };
}

function fields(body: Record<string, unknown>): Partial<ImportForm> {
  const text = (key: string): string => (typeof body[key] === 'string' ? (body[key] as string).trim() : '');
  return {
    spec: typeof body.spec === 'string' ? body.spec : '',
    label: text('label') || 'pasted spec',
    prefix: text('prefix'),
    baseUrl: text('base_url'),
  };
}

/** The spec from the uploaded file, else the pasted text; a string says what is wrong. */
async function readForm(c: Context): Promise<ImportForm | string> {
  const body = await c.req.parseBody();
  const form = { ...emptyForm(), ...fields(body) };
  const file = body.file;
  if (file instanceof File && file.size > 0) {
    if (file.size > SPEC_CAP) return `${file.name} is larger than ${SPEC_CAP} bytes`;
    return { ...form, spec: await file.text(), label: file.name };
  }
  if (form.spec.trim() === '') return 'upload a spec file or paste one';
  return form;
}

function formPage(
  c: Context,
  deps: AppDeps,
  status: 200 | 400 | 409,
  form: ImportForm,
  errors: string[] = [],
): Response {
  const context = deps.page();
  const body = html`<p class="crumbs"><a href="/blueprints">Blueprints</a> / Import</p>
<h1>Import an OpenAPI spec</h1>
<p class="muted lede">Each operation becomes a REST tool, its parameters typed from the spec; writing operations ask before each call. Nothing is written before you pick the operations.</p>
${notice('error', errors)}
<form method="post" action="/blueprints/import/preview" enctype="multipart/form-data" class="import">${csrfField(context)}
<label>Spec file (JSON or YAML)<input type="file" name="file" accept=".json,.yaml,.yml,application/json"></label>
<label>…or paste it<textarea name="spec" rows="10" spellcheck="false">${form.spec}</textarea></label>
<label>Tool name prefix <small>(default: from the spec's title)</small><input name="prefix" value="${form.prefix}" spellcheck="false" placeholder="acme"></label>
<label>Base URL <small>(default: the spec's server)</small><input name="base_url" value="${form.baseUrl}" spellcheck="false" placeholder="https://api.example.com/v1"></label>
<button type="submit">Preview</button>
</form>`;
  return c.html(layout('Import', ACTIVE, body, context, '').text, status);
}

function previewPage(c: Context, deps: AppDeps, form: ImportForm, made: SpecBlueprint): Response {
  const context = deps.page();
  const body = html`<p class="crumbs"><a href="/blueprints">Blueprints</a> / <a href="/blueprints/import">Import</a> / ${made.name}</p>
<h1>${made.title} <small>${made.version ?? ''}</small></h1>
<p class="muted">${made.operations.length} operations at <code>${made.baseUrl}</code>, as tools <code>${made.name}.*</code>, written to <code>.factorly/blueprints/${made.name}.yaml</code>.</p>
${notice('info', [...made.collisions.map((line) => `Renamed: ${line}`), ...made.skipped.map((line) => `Left out: ${line}`)])}
<form method="post" action="/blueprints/import/install" class="import-pick">${csrfField(context)}
<input type="hidden" name="spec" value="${form.spec}"><input type="hidden" name="label" value="${form.label}">
<input type="hidden" name="prefix" value="${form.prefix || made.name}"><input type="hidden" name="base_url" value="${form.baseUrl}">
${scrolling(
  'Operations',
  html`<table class="operations"><thead><tr><th>Import</th><th>Tool</th><th>Request</th><th>Parameters</th></tr></thead><tbody>${made.operations.map(
    (
      op,
    ) => html`<tr><td><input type="checkbox" name="op" value="${op.operation}" checked aria-label="Import ${op.tool}"></td>
<td><code>${op.tool}</code>${op.confirm ? html` ${badge('asks first', 'warn')}` : ''}<div class="muted">${op.summary ?? ''}</div></td>
<td><code>${op.method} ${op.path}</code></td>
<td>${op.parameters.map((p) => html`<span class="param"><code>${p.name}</code><small>${p.type}${p.required ? ' · required' : ''}</small></span> `)}</td></tr>`,
  )}</tbody></table>`,
)}
${made.vaultKeys.length > 0 ? html`<fieldset><legend>Credentials (stored in the vault; leave one empty to set it later)</legend>${made.vaultKeys.map((key) => html`<label>${key}<input type="password" name="key.${key}" autocomplete="new-password"></label>`)}</fieldset>` : ''}
<button type="submit">Import the picked operations</button>
</form>`;
  return c.html(layout(`Import ${made.name}`, ACTIVE, body, context, '').text);
}
