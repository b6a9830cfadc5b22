import type { EditableTool, ParameterEdit, ParamType, ToolEdit } from 'factorly';
import { html, type Html } from './html.js';
import { csrfField, type PageContext } from './layout.js';

const PARAM_TYPES = [
  'string',
  'text',
  'integer',
  'number',
  'boolean',
  'json',
  'enum',
] as const satisfies readonly ParamType[];

type Body = Record<string, string | File | (string | File)[]>;

/** The form's values: what the file holds at first, what was submitted when a save is refused. */
export type EditValues = Required<
  Pick<ToolEdit, 'description' | 'parameters' | 'shadow' | 'code' | 'timeout' | 'maxOutput' | 'hidden'>
> & { added: ParameterEdit };

const EMPTY_PARAMETER: ParameterEdit = {
  name: '',
  type: 'string',
  required: false,
  default: '',
  description: '',
  added: true,
};

export function valuesOf(editable: EditableTool): EditValues {
  const { tool, written } = editable;
  return {
    description: tool.description,
    parameters: tool.parameters.map((p) => ({
      name: p.name,
      type: p.type,
      required: p.required,
      description: p.description ?? '',
      default: p.default === undefined ? '' : typeof p.default === 'string' ? p.default : JSON.stringify(p.default),
    })),
    shadow: written.shadow,
    code: typeof tool.spec.code === 'string' ? tool.spec.code : '',
    timeout: written.timeout,
    maxOutput: written.maxOutput,
    hidden: written.hidden,
    added: EMPTY_PARAMETER,
  };
}

/** The submitted form as values (to show again) and as the edit it asks for (only the fields this kind of tool has). */
export function submitted(body: Body, editable: EditableTool): { values: EditValues; edit: ToolEdit } {
  const text = (key: string): string => (typeof body[key] === 'string' ? (body[key] as string) : '');
  const parameter = (prefix: string, added: boolean): ParameterEdit => ({
    name: text(`${prefix}.name`).trim(),
    type: (text(`${prefix}.type`) || 'string') as ParamType,
    required: body[`${prefix}.required`] === 'on',
    default: text(`${prefix}.default`),
    description: text(`${prefix}.description`),
    ...(body[`${prefix}.remove`] === 'on' ? { remove: true } : {}),
    ...(added ? { added: true } : {}),
  });
  const parameters = editable.tool.parameters.map((_, index) => parameter(`p${index}`, false));
  const added = parameter('new', true);
  const values: EditValues = {
    description: text('description'),
    parameters,
    shadow: text('shadow'),
    code: text('code'),
    timeout: text('timeout'),
    maxOutput: text('max_output'),
    hidden: body.hidden === 'on',
    added,
  };
  if (editable.kind === 'overlay')
    return {
      values,
      edit: { shadow: values.shadow, timeout: values.timeout, maxOutput: values.maxOutput, hidden: values.hidden },
    };
  const edit: ToolEdit = {
    description: values.description,
    parameters: added.name ? [...parameters, added] : parameters,
    shadow: values.shadow,
  };
  if (editable.tool.type === 'code') edit.code = values.code;
  return { values, edit };
}

export function editForm(editable: EditableTool, values: EditValues, context: PageContext): Html {
  const { tool, kind } = editable;
  const action = `/tools/${encodeURIComponent(tool.name)}/edit`;
  return html`<form class="edit" method="post" action="${action}">
${csrfField(context)}
${
  kind === 'definition'
    ? html`<label>Description<textarea name="description" rows="3">${'\n'}${values.description}</textarea></label>
<fieldset><legend>Parameters</legend>${parametersTable(values)}</fieldset>`
    : html`<p class="muted">A built-in tool: an entry can only adjust its shadow block, timeout, output cap and visibility.</p>
<div class="row-fields">
  <label>Timeout<input name="timeout" value="${values.timeout}" placeholder="e.g. 30s" autocomplete="off"></label>
  <label>Max output (bytes)<input name="max_output" value="${values.maxOutput}" inputmode="numeric" autocomplete="off"></label>
</div>
<label class="check"><input type="checkbox" name="hidden"${values.hidden ? html` checked` : ''}><span>Hidden from tool lists (still callable by name)</span></label>`
}
<label>Shadow block <small>YAML: deny, confirm, rate_limit, max_calls, loop, …; empty for none</small><textarea name="shadow" rows="4" class="code-input" spellcheck="false">${'\n'}${values.shadow}</textarea></label>
${kind === 'definition' && tool.type === 'code' ? html`<label>Script <small>checked by the sandbox engine's compiler before it is written</small><textarea name="code" rows="14" class="code-input" spellcheck="false">${'\n'}${values.code}</textarea></label>` : ''}
<div class="actions"><button type="submit">Save</button><a class="button secondary" href="/tools/${encodeURIComponent(tool.name)}">Cancel</a></div>
</form>`;
}

function parametersTable(values: EditValues): Html {
  const rows = values.parameters.map((p, index) => parameterRow(`p${index}`, p, false));
  return html`<div class="table-wrap"><table class="params-edit"><thead><tr><th>Name</th><th>Type</th><th>Required</th><th>Default</th><th>Description</th><th>Remove</th></tr></thead>
<tbody>${rows}${parameterRow('new', values.added, true)}</tbody></table></div>`;
}

function parameterRow(prefix: string, p: ParameterEdit, added: boolean): Html {
  return html`<tr class="${added ? 'new-param' : ''}">
  <td data-label="Name">${added ? html`<input name="${prefix}.name" value="${p.name}" placeholder="add a parameter" aria-label="New parameter name" autocomplete="off" spellcheck="false">` : html`<code>${p.name}</code><input type="hidden" name="${prefix}.name" value="${p.name}">`}</td>
  <td data-label="Type"><select name="${prefix}.type" aria-label="Type of ${p.name || 'the new parameter'}">${PARAM_TYPES.map((t) => html`<option${t === p.type ? html` selected` : ''}>${t}</option>`)}</select></td>
  <td data-label="Required"><input type="checkbox" name="${prefix}.required" aria-label="${p.name || 'New parameter'} is required"${p.required ? html` checked` : ''}></td>
  <td data-label="Default"><input name="${prefix}.default" value="${p.default}" aria-label="Default of ${p.name || 'the new parameter'}" autocomplete="off"></td>
  <td data-label="Description"><input name="${prefix}.description" value="${p.description}" aria-label="Description of ${p.name || 'the new parameter'}" autocomplete="off"></td>
  <td data-label="Remove">${added ? '' : html`<input type="checkbox" name="${prefix}.remove" aria-label="Remove ${p.name}"${p.remove ? html` checked` : ''}>`}</td>
</tr>`;
}
