import type { EditableTool, ToolEditPlan } from 'factorly';
import type { Context, Hono } from 'hono';
import type { AppDeps } from '../app-deps.js';
import { html } from '../html.js';
import { badge, layout, notFound, notice } from '../layout.js';
import { editForm, submitted, valuesOf, type EditValues } from '../tool-edit-form.js';
import { messageOf } from '../messages.js';

/**
 * `/tools/<name>/edit`: the tool's description, parameters, shadow block and script, saved in place
 * into the YAML file it came from. A save with problems writes nothing and shows them inline.
 */
export function registerToolEdit(app: Hono, deps: AppDeps): void {
  app.get('/tools/:name/edit', async (c) => {
    const editable = await lookup(c, deps);
    if (!('tool' in editable)) return editable;
    const notes: string[] = [];
    if (c.req.query('promoted'))
      notes.push(
        `Saved as a tool in ${editable.file}. Polish its description and parameter docs here; calls go through the same rules as any other.`,
      );
    const saved = c.req.query('saved');
    if (saved !== undefined)
      notes.push(saved ? `Saved ${editable.file} (${saved}); the tool is served with the change.` : 'Nothing changed.');
    return page(c, deps, 200, editable, valuesOf(editable), notes, []);
  });

  app.post('/tools/:name/edit', async (c) => {
    const editable = await lookup(c, deps);
    if (!('tool' in editable)) return editable;
    const { values, edit } = submitted(await c.req.parseBody(), editable);
    let plan: ToolEditPlan;
    try {
      plan = await deps.services.saveToolEdit(editable.tool.name, edit);
    } catch (error) {
      return page(c, deps, 400, editable, values, [], [messageOf(error)]);
    }
    if (plan.problems.length > 0)
      return page(c, deps, 400, editable, values, [], ['Nothing was written:', ...plan.problems]);
    return c.redirect(
      `/tools/${encodeURIComponent(editable.tool.name)}/edit?saved=${encodeURIComponent(plan.changed.join(', '))}`,
      303,
    );
  });
}

async function lookup(c: Context, deps: AppDeps): Promise<EditableTool | Response> {
  const name = c.req.param('name') ?? '';
  try {
    return await deps.services.editableTool(name);
  } catch (error) {
    const known = deps.gateway.tools(undefined, { held: true }).some((t) => t.name === name);
    if (!known)
      return c.html(
        notFound(
          'No such tool',
          html`No tool is named <code>${name}</code>. <a href="/tools">All tools</a>`,
          '/tools',
          deps.page(),
        ).text,
        404,
      );
    const body = html`<p class="crumbs"><a href="/tools">Tools</a> / <a href="/tools/${encodeURIComponent(name)}">${name}</a> / Edit</p><h1>Edit ${name}</h1>${notice('error', [messageOf(error)])}`;
    return c.html(layout(`Edit ${name}`, '/tools', body, deps.page(), '').text, 409);
  }
}

function page(
  c: Context,
  deps: AppDeps,
  status: 200 | 400,
  editable: EditableTool,
  values: EditValues,
  notes: string[],
  errors: string[],
): Response {
  const { tool } = editable;
  const context = deps.page();
  const body = html`<p class="crumbs"><a href="/tools">Tools</a> / <a href="/tools/${encodeURIComponent(tool.name)}">${tool.name}</a> / Edit</p>
<h1>Edit ${tool.name} ${badge(tool.type)}</h1>
${notice('ok', notes)}
${notice('error', errors)}
<p class="muted">Saves in place into <code>${editable.file}</code>, keeping its comments and order, then serves the tool with the change.</p>
${editForm(editable, values, context)}`;
  return c.html(layout(`Edit ${tool.name}`, '/tools', body, context, '').text, status);
}
