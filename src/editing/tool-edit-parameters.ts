import { isDeepStrictEqual } from 'node:util';
import { isSeq, type YAMLMap, type YAMLSeq } from 'yaml';
import type { JsonValue } from '../events/catalog.js';
import { parameterItem, type YamlEditor } from './yaml-edit.js';
import { PARAM_TYPES, type ParameterSpec, type ParamType } from '../contracts/tool.js';
import { coerceValue } from '../config/params.js';

/** One parameter as the edit form sends it. */
export interface ParameterEdit {
  name: string;
  type: ParamType;
  required: boolean;
  /** The default as typed (read as the parameter's type); empty removes it. */
  default: string;
  description: string;
  /** Drop the parameter. */
  remove?: boolean;
  /** A parameter the file does not declare yet. */
  added?: boolean;
}

/**
 * Applies parameter edits to an entry's `parameters` list, item by item, so a parameter's other
 * keys (`pattern`, `in`, comments) stay as written. A key that was absent is only written when it
 * says something (`type: string` and `required: false` are the defaults). `current` are the tool's
 * parameters now: an entry that declares none has them inferred (a cli tool's `{{placeholders}}`),
 * and editing one of those declares them all, since a declared list replaces the inferred one.
 */
export function applyParameters(
  editor: YamlEditor,
  entry: YAMLMap,
  edits: readonly ParameterEdit[],
  current: readonly ParameterSpec[],
  problems: string[],
): void {
  const effective = entry.has('parameters') ? edits : declaringInferred(edits, current);
  for (const edit of effective) {
    if (!(PARAM_TYPES as readonly string[]).includes(edit.type)) {
      problems.push(`parameter "${edit.name}" has unknown type "${edit.type}" (valid: ${PARAM_TYPES.join(', ')})`);
      continue;
    }
    const fallback = defaultOf(edit, problems);
    if (fallback === INVALID) continue;
    if (edit.added) add(editor, entry, edit, fallback, problems);
    else change(editor, entry, edit, fallback, problems);
  }
}

const INVALID = Symbol('invalid default');

function declaringInferred(edits: readonly ParameterEdit[], inferred: readonly ParameterSpec[]): ParameterEdit[] {
  const existing = edits.filter((edit) => !edit.added);
  const added = edits.filter((edit) => edit.added);
  if (
    existing.every(
      (edit) =>
        !edit.remove &&
        isUnchanged(
          edit,
          inferred.find((p) => p.name === edit.name),
        ),
    )
  )
    return added;
  return [...existing.filter((edit) => !edit.remove).map((edit) => ({ ...edit, added: true })), ...added];
}

function isUnchanged(edit: ParameterEdit, spec: ParameterSpec | undefined): boolean {
  if (
    !spec ||
    edit.type !== spec.type ||
    edit.required !== spec.required ||
    edit.description.trim() !== (spec.description ?? '')
  )
    return false;
  if (edit.default.trim() === '') return spec.default === undefined;
  const coerced = coerceValue(spec, edit.default);
  return coerced.ok && isDeepStrictEqual(coerced.value, spec.default);
}

function defaultOf(edit: ParameterEdit, problems: string[]): JsonValue | undefined | typeof INVALID {
  if (edit.default.trim() === '') return undefined;
  const coerced = coerceValue({ name: edit.name, type: edit.type, required: false }, edit.default);
  if (coerced.ok) return coerced.value;
  problems.push(`parameter "${edit.name}" has an invalid default: ${coerced.message}`);
  return INVALID;
}

function change(
  editor: YamlEditor,
  entry: YAMLMap,
  edit: ParameterEdit,
  fallback: JsonValue | undefined,
  problems: string[],
): void {
  const list = entry.get('parameters', true) as unknown;
  const item = parameterItem(list as YAMLSeq | undefined, edit.name);
  const label = `parameters.${edit.name}`;
  if (!item || !isSeq(list)) {
    problems.push(`parameter "${edit.name}" is no longer in the file; reload the page`);
    return;
  }
  if (edit.remove) {
    list.items.splice(list.items.indexOf(item), 1);
    editor.changed.push(`${label} removed`);
    return;
  }
  editor.set(
    item,
    'type',
    !item.has('type') && edit.type === 'string' ? undefined : edit.type,
    `${label}.type`,
    'name',
  );
  editor.set(item, 'required', edit.required ? true : item.has('required') ? false : undefined, `${label}.required`);
  editor.set(item, 'default', fallback, `${label}.default`);
  editor.set(item, 'description', edit.description.trim() || undefined, `${label}.description`);
}

function add(
  editor: YamlEditor,
  entry: YAMLMap,
  edit: ParameterEdit,
  fallback: JsonValue | undefined,
  problems: string[],
): void {
  const name = edit.name.trim();
  if (name === '') return;
  const list = entry.get('parameters', true) as unknown;
  if (parameterItem(list as YAMLSeq | undefined, name)) {
    problems.push(`parameter "${name}" is declared already`);
    return;
  }
  const spec: Record<string, JsonValue> = { name };
  if (edit.type !== 'string') spec.type = edit.type;
  if (edit.required) spec.required = true;
  if (fallback !== undefined) spec.default = fallback;
  if (edit.description.trim()) spec.description = edit.description.trim();
  if (isSeq(list)) list.items.push(editor.doc.createNode(spec));
  else entry.set('parameters', editor.doc.createNode([spec]));
  editor.changed.push(`parameters.${name} added`);
}
