import type { PromotionPlan, PromoteRequest } from 'factorly';
import type { Context, Hono } from 'hono';
import type { AppDeps } from '../app-deps.js';
import { html, pretty } from '../html.js';
import { csrfField, layout, notice, scrolling } from '../layout.js';
import { messageOf } from '../messages.js';

interface FormState {
  fromSha: string;
  name: string;
  description: string;
  confirm: boolean;
  overwrite: boolean;
}

/** Problems the person fixes in the form (the name); any other problem blocks saving. */
function isNameProblem(problem: string): boolean {
  return / already exists|is defined in /.test(problem);
}

/** The CLI's wording names its flag; the form names its checkbox. */
function forForm(problem: string): string {
  return problem.replace('; pass --overwrite to replace it', " (check 'overwrite' to replace it)");
}

export function registerPromote(app: Hono, deps: AppDeps): void {
  app.get('/tools/promote', async (c) => {
    const fromSha = c.req.query('from-sha')?.trim() ?? '';
    if (!fromSha) return page(c, deps, 400, undefined, undefined, ['from-sha is required']);
    const state: FormState = {
      fromSha,
      name: c.req.query('name')?.trim() || `script_${fromSha.slice(0, 8)}`,
      description: '',
      confirm: true,
      overwrite: false,
    };
    return plan(c, deps, state, 200);
  });

  app.post('/tools/promote', async (c) => {
    const body = await c.req.parseBody();
    const field = (key: string): string => (typeof body[key] === 'string' ? (body[key] as string).trim() : '');
    const state: FormState = {
      fromSha: field('from-sha'),
      name: field('name'),
      description: field('description'),
      confirm: body.confirm === 'on',
      overwrite: body.overwrite === 'on',
    };
    if (!state.fromSha) return page(c, deps, 400, undefined, undefined, ['from-sha is required']);
    if (!state.name) return plan(c, deps, state, 400, ['name is required']);
    const request = requestOf(state);
    let planned: PromotionPlan;
    try {
      planned = await deps.services.planPromotion(request);
    } catch (error) {
      return plan(c, deps, state, isLookup(error) ? 404 : 400, [messageOf(error)]);
    }
    if (planned.problems.length > 0) {
      const status = planned.problems.every(isNameProblem) ? 409 : 400;
      return page(c, deps, status, state, planned, planned.problems.map(forForm));
    }
    try {
      await deps.services.promote(request);
    } catch (error) {
      return page(c, deps, 409, state, planned, [forForm(messageOf(error))]);
    }
    return c.redirect(`/tools/${encodeURIComponent(state.name)}/edit?promoted=1`, 303);
  });
}

function requestOf(state: FormState): PromoteRequest {
  return {
    fromSha: state.fromSha,
    name: state.name,
    description: state.description || undefined,
    confirm: state.confirm,
    overwrite: state.overwrite,
  };
}

function isLookup(error: unknown): boolean {
  return /sha prefix|no factorly\.code entry/.test(messageOf(error));
}

/** Plans with the form's values and renders the result (a plan with no name still shows the run). */
async function plan(
  c: Context,
  deps: AppDeps,
  state: FormState,
  status: 200 | 400 | 404,
  extra: string[] = [],
): Promise<Response> {
  try {
    const planned = await deps.services.planPromotion(requestOf({ ...state, name: state.name || 'unnamed' }));
    return page(c, deps, status, state, planned, [...extra, ...planned.problems.map(forForm)]);
  } catch (error) {
    const lookup = isLookup(error);
    if (lookup) return page(c, deps, 404, undefined, undefined, [messageOf(error)]);
    return page(c, deps, 400, state, undefined, [...extra, messageOf(error)]);
  }
}

function page(
  c: Context,
  deps: AppDeps,
  status: 200 | 400 | 404 | 409,
  state: FormState | undefined,
  planned: PromotionPlan | undefined,
  problems: string[],
): Response {
  const context = deps.page();
  const blocking = planned?.problems.filter((problem) => !isNameProblem(problem)) ?? [];
  const body = html`<p class="crumbs"><a href="/history">History</a> / Save as tool</p>
<h1>Save as tool</h1>
${notice('error', [...new Set(problems)])}
${
  state
    ? html`<form class="promote" method="post" action="/tools/promote">
  ${csrfField(context)}
  <input type="hidden" name="from-sha" value="${state.fromSha}">
  <label>Name<input name="name" value="${state.name}" required autocomplete="off"></label>
  <label>Description<input name="description" value="${state.description}" placeholder="${planned?.description ?? ''}"></label>
  ${
    planned
      ? html`<p class="muted">From run <a href="/calls/${planned.run.callId}">${planned.run.callId}</a> · sha <code>${planned.run.source.sha.slice(0, 12)}</code> · writes <code>${planned.file}</code></p>
  <h2>Parameters <small>inferred from the run; their values become defaults</small></h2>
  ${
    planned.parameters.length === 0
      ? html`<p class="muted">None: the run had no params.</p>`
      : html`${scrolling(
          'Parameters',
          html`<table class="params"><thead><tr><th>Name</th><th>Type</th><th>Default</th></tr></thead><tbody>${planned.parameters.map(
            (p) =>
              html`<tr><td><code>${p.name}</code></td><td>${p.type}</td><td><code>${p.default === undefined ? '—' : JSON.stringify(p.default)}</code></td></tr>`,
          )}</tbody></table>`,
        )}`
  }
  <h2>Source</h2><pre class="code" tabindex="0">${planned.run.source.source}</pre>`
      : ''
  }
  <label class="check"><input type="checkbox" name="confirm"${state.confirm ? html` checked` : ''}><span>Ask before each call (<code>shadow.confirm: true</code>)</span></label>
  <label class="check"><input type="checkbox" name="overwrite"${state.overwrite ? html` checked` : ''}><span>Overwrite a tool of this name saved earlier</span></label>
  <button type="submit"${blocking.length > 0 || !planned ? html` disabled` : ''}>Save tool</button>
</form>
${planned ? html`<details><summary>YAML that will be written</summary><pre tabindex="0">${pretty(planned.yaml)}</pre></details>` : ''}`
    : ''
}`;
  return c.html(layout('Save as tool', '/history', body, context, '').text, status);
}
