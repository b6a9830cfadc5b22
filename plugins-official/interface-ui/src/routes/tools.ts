import type { CallOutcome, Params, ToolDefinition } from 'factorly';
import type { Context, Hono } from 'hono';
import type { AppDeps } from '../app-deps.js';
import { duration, html, pretty, type Html } from '../html.js';
import { badge, csrfField, layout, notFound, notice, scrolling } from '../layout.js';
import { toolYaml } from '../tool-yaml.js';
import { callHref, historyTable } from '../history-view.js';

const RECENT = 10;

/** Whether the tool has an entry a person can edit (its own, or one adjusting a built-in). */
async function editable(deps: AppDeps, name: string): Promise<boolean> {
  try {
    await deps.services.editableTool(name);
    return true;
  } catch {
    return false;
  }
}

/** The tools a listing holds back (a pinned definition that changed): in the catalogue, not listed. */
function heldNames(deps: AppDeps): Set<string> {
  const listed = new Set(deps.gateway.tools().map((tool) => tool.name));
  return new Set(
    deps.gateway
      .tools(undefined, { held: true })
      .filter((tool) => !listed.has(tool.name))
      .map((tool) => tool.name),
  );
}

/** `github.issues.list` → `github`; a name without a dot has no group. */
function prefixOf(name: string): string {
  const dot = name.indexOf('.');
  return dot > 0 ? name.slice(0, dot) : '(no prefix)';
}

export function registerTools(app: Hono, deps: AppDeps): void {
  app.get('/tools', (c) => {
    const groups = new Map<string, ToolDefinition[]>();
    const held = heldNames(deps);
    for (const tool of deps.gateway.tools(undefined, { held: true })) {
      if (tool.hidden) continue;
      const group = groups.get(prefixOf(tool.name)) ?? [];
      group.push(tool);
      groups.set(prefixOf(tool.name), group);
    }
    const body = html`<h1>Tools</h1>
${held.size > 0 ? notice('error', [`${held.size} held: a definition changed since it was pinned, and agents do not see the tool until a person approves it.`]) : ''}
<p class="muted"><a href="/pins">Pinned definitions</a>: what agents were told about each tool, and the changes waiting for a person.</p>
${[...groups.entries()]
  .sort(([a], [b]) => a.localeCompare(b))
  .map(
    ([prefix, tools]) => html`<section class="group"><h2>${prefix} <small>${tools.length}</small></h2>
<ul class="tools">${tools.map((tool) => html`<li><a href="/tools/${encodeURIComponent(tool.name)}">${tool.name}</a> ${badge(tool.type)}${held.has(tool.name) ? html`<a href="/pins/${encodeURIComponent(tool.name)}">${badge('held')}</a>` : ''}<span class="muted">${tool.description}</span></li>`)}</ul></section>`,
  )}`;
    return c.html(layout('Tools', '/tools', body, deps.page(), '').text);
  });

  app.get('/tools/:name', (c) => toolPage(c, deps, 200));

  app.post('/tools/:name/try', async (c) => {
    const tool = deps.gateway.tools(undefined, { held: true }).find((t) => t.name === c.req.param('name'));
    if (!tool) return toolPage(c, deps, 404);
    const body = await c.req.parseBody();
    const params: Params = {};
    for (const parameter of tool.parameters) {
      const value = body[`param.${parameter.name}`];
      if (typeof value === 'string' && value !== '') params[parameter.name] = value;
    }
    const outcome = await deps.gateway.call({ tool: tool.name, params, iface: 'ui' });
    return toolPage(c, deps, 200, { outcome, params });
  });
}

async function toolPage(
  c: Context,
  deps: AppDeps,
  status: 200 | 404,
  tried?: { outcome: CallOutcome; params: Params },
): Promise<Response> {
  const name = c.req.param('name') ?? '';
  const tool = deps.gateway.tools(undefined, { held: true }).find((t) => t.name === name);
  if (!tool) {
    return c.html(
      notFound(
        'No such tool',
        html`No tool is named <code>${name}</code>. <a href="/tools">All tools</a>`,
        '/tools',
        deps.page(),
      ).text,
      404,
    );
  }
  const [calls, agents, canEdit] = await Promise.all([
    deps.services.recentCalls({ tool: tool.name }, RECENT * 3),
    deps.services.agents(),
    editable(deps, tool.name),
  ]);
  const recent = calls
    .filter((e) => e.tool === tool.name)
    .slice(-RECENT)
    .reverse();
  const yaml = toolYaml(tool, deps.paths.baseDir);
  const body = html`<p class="crumbs"><a href="/tools">Tools</a> / ${tool.name}</p>
<div class="page-head"><h1>${tool.name} ${badge(tool.type)}</h1>${canEdit ? html`<a class="button secondary" href="/tools/${encodeURIComponent(tool.name)}/edit">Edit</a>` : ''}</div>
${heldNames(deps).has(tool.name) ? notice('error', [`This tool is held: its definition changed since it was pinned, and agents do not see it.`]) : ''}
${heldNames(deps).has(tool.name) ? html`<p><a class="button secondary" href="/pins/${encodeURIComponent(tool.name)}">Review the change</a></p>` : ''}
<p>${tool.description}</p>
<p class="muted">Defined in <code>${tool.source.file}${tool.source.line > 0 ? `:${tool.source.line}` : ''}</code></p>
<section><h2>Try it</h2>${tryNotes(tool, deps)}${tryForm(tool, deps, tried?.params)}${tried ? result(tried.outcome) : ''}</section>
<section><h2>Parameters</h2>${parameters(tool)}</section>
<section><h2>Shadow rules</h2>${shadow(tool)}</section>
${yaml ? html`<section><h2>YAML</h2><pre class="code" tabindex="0">${yaml}</pre></section>` : ''}
<section><div class="section-head"><h2>Recent calls</h2>${recent.length > 0 ? html`<a href="/history?${new URLSearchParams({ tool: tool.name }).toString()}">All its calls</a>` : ''}</div>${historyTable(recent, agents, 'None yet.')}</section>`;
  return c.html(layout(tool.name, '/tools', body, deps.page(), '').text, status);
}

/** What a person should know before running the tool here: it is denied, or it waits for an approval. */
function tryNotes(tool: ToolDefinition, deps: AppDeps): Html {
  if (deps.policies?.denies(tool))
    return notice('warn', [
      'Every call of this tool is denied by its shadow rules: Run records a blocked call and runs nothing.',
    ]);
  if (deps.policies?.confirms(tool))
    return html`<p class="muted">This tool asks before each call: a run waits until it is approved on <a href="/approvals" target="_blank">Approvals</a>.</p>`;
  return html``;
}

function tryForm(tool: ToolDefinition, deps: AppDeps, values: Params = {}): Html {
  return html`<form class="try" method="post" action="/tools/${encodeURIComponent(tool.name)}/try">
${csrfField(deps.page())}
${tool.parameters.map((p) => paramField(p, values[p.name] === undefined ? '' : String(values[p.name])))}
<button type="submit">Run</button>
</form>`;
}

/** One param's field: a choice for an enum, a text area for JSON and scripts, else a line; `required` as declared. */
function paramField(p: ToolDefinition['parameters'][number], value: string): Html {
  const field = `param.${p.name}`;
  const shown = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));
  const hint = p.default === undefined ? (p.required ? 'required' : '') : `default: ${shown(p.default)}`;
  const label = html`<span>${p.name} <small>${p.type}${p.required ? ' · required' : ''}</small></span>`;
  const required = p.required && p.default === undefined ? html` required` : '';
  if (p.enum && p.enum.length > 0)
    return html`<label>${label}<select name="${field}"${required}><option value="">${p.default === undefined ? 'choose…' : `default (${shown(p.default)})`}</option>${p.enum.map((option) => html`<option${option === value ? html` selected` : ''}>${option}</option>`)}</select></label>`;
  if (p.type === 'json' || p.name === 'code')
    return html`<label>${label}<textarea name="${field}" rows="4" placeholder="${hint}"${required}>${value}</textarea></label>`;
  return html`<label>${label}<input name="${field}" value="${value}" placeholder="${hint}"${required}></label>`;
}

function result(outcome: CallOutcome): Html {
  return html`<div class="result result-${outcome.status}" id="try-result">
<p>${badge(outcome.status)} exit ${outcome.exitCode} · ${duration(outcome.durationMs)} · <a href="${callHref(outcome.callId)}">call ${outcome.callId}</a></p>
${outcome.output ? html`<pre class="output" tabindex="0">${pretty(outcome.output)}</pre>` : ''}
${outcome.error ? html`<p class="error-text">${outcome.error}</p>` : ''}
</div>`;
}

function parameters(tool: ToolDefinition): Html {
  if (tool.parameters.length === 0) return html`<p class="muted">None.</p>`;
  return html`${scrolling(
    'Parameters',
    html`<table class="params"><thead><tr><th>Name</th><th>Type</th><th>Required</th><th>Default</th><th>Description</th></tr></thead><tbody>${tool.parameters.map(
      (p) =>
        html`<tr><td><code>${p.name}</code></td><td>${p.type}</td><td>${p.required ? 'yes' : 'no'}</td><td><code>${p.default === undefined ? '—' : JSON.stringify(p.default)}</code></td><td>${p.description ?? ''}</td></tr>`,
    )}</tbody></table>`,
  )}`;
}

function shadow(tool: ToolDefinition): Html {
  const entries = Object.entries(tool.shadow ?? {}).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return html`<p class="muted">No rules of its own: the defaults apply.</p>`;
  return html`<dl class="rules">${entries.map(([key, value]) => html`<dt>${key}</dt><dd><code>${typeof value === 'string' ? value : JSON.stringify(value)}</code></dd>`)}</dl>`;
}
