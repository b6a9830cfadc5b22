import { existsSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { Document, isMap, parseDocument, type Node, type YAMLMap } from 'yaml';
import { FactorlyError, messageOf } from '../base/errors.js';
import { writeAtomically } from '../base/write-atomic.js';
import { BUILTIN_PREFIX } from '../config/tool-schema.js';
import { mapAt, YamlEditor } from './yaml-edit.js';
import type { ToolDefinition } from '../contracts/tool.js';
import type { Kernel } from '../kernel/kernel.js';
import { applyParameters } from './tool-edit-parameters.js';

export type { ParameterEdit } from './tool-edit-parameters.js';
import type { EditableTool, ToolEdit, ToolEditPlan } from './contracts.js';
export type { EditableTool, ToolEdit, ToolEditPlan } from './contracts.js';

/** Where a tool's entry lives and what it holds now; refuses tools no entry of their own defines. */
export function editableTool(kernel: Kernel, name: string): EditableTool {
  const target = targetOf(kernel, name);
  const text = existsSync(target.path) ? readFileSync(target.path, 'utf8') : '';
  const entry = entryIn(parseDocument(text).contents, name);
  const written = {
    shadow: yamlOf(entry?.get('shadow', true) as Node | undefined),
    timeout: scalarText(entry, 'timeout'),
    maxOutput: scalarText(entry, 'max_output'),
    hidden: entry?.get('hidden') === true,
  };
  return { tool: target.tool, kind: target.kind, file: target.file, written };
}

/**
 * Works an edit out without writing: applies it to the entry's YAML (comments, order and style of
 * everything else kept), compile-checks a changed script, and loads the whole config as it would
 * be, so every problem is known before anything is written.
 */
export async function planToolEdit(kernel: Kernel, name: string, edit: ToolEdit): Promise<ToolEditPlan> {
  const target = targetOf(kernel, name);
  const before = existsSync(target.path) ? readFileSync(target.path, 'utf8') : '';
  const editor = YamlEditor.parse(before);
  // Whole messages: the yaml library's ends with the lines around the problem and a caret under it.
  const problems: string[] = editor.doc.errors.map((error) => `${target.file}: ${error.message.trimEnd()}`);
  const entry = problems.length > 0 ? undefined : entryFor(editor, name, target.kind === 'overlay');
  if (!entry && problems.length === 0)
    problems.push(`${target.file} no longer holds an entry "${name}"; reload the page`);
  if (entry) applyEdit(editor, entry, target, edit, problems, scriptKeyOf(kernel, target.tool));
  const text = editor.render(before);
  const plan = { name, file: target.file, text, changed: editor.changed, problems };
  if (problems.length > 0 || editor.changed.length === 0) return plan;
  const key = scriptKeyOf(kernel, target.tool);
  if (edit.code !== undefined && key && editor.changed.includes(key))
    problems.push(...scriptProblems(kernel, target.tool, key, edit.code));
  // A script that does not compile is reported once, here (loading it would warn about it again).
  if (problems.length === 0) problems.push(...(await configProblems(kernel, target.path, text)));
  return plan;
}

/** Plans the edit and, when it has no problems and changes something, writes it, reloads and records it. */
export async function saveToolEdit(kernel: Kernel, name: string, edit: ToolEdit): Promise<ToolEditPlan> {
  const plan = await planToolEdit(kernel, name, edit);
  if (plan.problems.length > 0 || plan.changed.length === 0) return plan;
  writeAtomically(resolve(kernel.paths.baseDir, plan.file), plan.text, 0o644);
  try {
    await kernel.reload();
  } catch (error) {
    // Only when another file changed between the check and the write.
    throw new FactorlyError(
      'CONFIG_INVALID',
      `saved ${plan.file}, but the config did not reload: ${messageOf(error)}`,
      { cause: error },
    );
  }
  await kernel.log().append([{ type: 'tool.edited', data: { name, file: plan.file, changed: plan.changed } }]);
  return plan;
}

interface Target {
  tool: ToolDefinition;
  kind: EditableTool['kind'];
  path: string;
  file: string;
  /** The tool's provider's `fileKeys` (a script kept in a file of its own). */
  fileKeys?: Readonly<Record<string, string>>;
}

function targetOf(kernel: Kernel, name: string): Target {
  const tool = kernel.registry.get(name);
  if (!tool) throw new FactorlyError('TOOL_NOT_FOUND', `tool "${name}" is not configured`);
  const { baseDir } = kernel.paths;
  const entry = kernel.config.tools.find((t) => t.name === name);
  if (entry) {
    const { fileKeys } = kernel.providers.get(tool.type) ?? {};
    return { tool, kind: 'definition', path: resolve(baseDir, entry.source.file), file: entry.source.file, fileKeys };
  }
  if (!name.startsWith(BUILTIN_PREFIX) || tool.source.line > 0) {
    throw new FactorlyError(
      'USAGE',
      `tool "${name}" has no entry of its own to edit: it comes from ${tool.source.file}:${tool.source.line}; edit that entry`,
    );
  }
  const overlay = kernel.config.overlays.find((o) => o.name === name);
  const path = overlay ? resolve(baseDir, overlay.source.file) : kernel.paths.mainFile;
  return { tool, kind: 'overlay', path, file: relative(baseDir, path) || path };
}

/** The tool's mapping: under `tools:`, or at the top of a flat file (promoted tools). */
function entryIn(root: unknown, name: string): YAMLMap | undefined {
  if (!isMap(root)) return undefined;
  const tools = root.get('tools', true);
  const holder = isMap(tools) ? tools : root;
  const entry = holder.get(name, true);
  return isMap(entry) ? entry : undefined;
}

function entryFor(editor: YamlEditor, name: string, create: boolean): YAMLMap | undefined {
  const found = entryIn(editor.doc.contents, name);
  if (found || !create) return found;
  if (editor.doc.contents === null) editor.doc.contents = editor.doc.createNode({});
  if (!isMap(editor.doc.contents)) return undefined;
  const tools = mapAt(editor.doc, editor.doc.contents, 'tools', true);
  return tools ? mapAt(editor.doc, tools, name, true) : undefined;
}

function applyEdit(
  editor: YamlEditor,
  entry: YAMLMap,
  target: Target,
  edit: ToolEdit,
  problems: string[],
  scriptKey: string | undefined,
): void {
  if (target.kind === 'definition') {
    if (edit.description !== undefined)
      editor.set(entry, 'description', edit.description.trim() || undefined, 'description', 'type');
    if (edit.parameters) applyParameters(editor, entry, edit.parameters, target.tool.parameters, problems);
    if (edit.code !== undefined && scriptKey) editScript(editor, entry, target, lines(edit.code), scriptKey, problems);
  } else {
    if (edit.timeout !== undefined) editor.set(entry, 'timeout', numberOrText(edit.timeout), 'timeout');
    if (edit.maxOutput !== undefined) editor.set(entry, 'max_output', numberOrText(edit.maxOutput), 'max_output');
    if (edit.hidden !== undefined) editor.set(entry, 'hidden', edit.hidden ? true : undefined, 'hidden');
  }
  if (edit.shadow !== undefined) {
    const parsed = parseDocument(lines(edit.shadow));
    if (parsed.errors.length > 0) problems.push(`shadow: ${parsed.errors[0].message.trimEnd()}`);
    else editor.setNode(entry, 'shadow', parsed.contents as Node | null, 'shadow');
  }
}

/**
 * Sets the entry's script; for one whose script lives in a file of its own (`code_file:`) a changed
 * script is refused, naming the file to edit (the entry keeps pointing at it).
 */
function editScript(
  editor: YamlEditor,
  entry: YAMLMap,
  target: Target,
  code: string,
  scriptKey: string,
  problems: string[],
): void {
  const fileKey = Object.entries(target.fileKeys ?? {}).find(([, key]) => key === scriptKey)?.[0];
  const file = fileKey === undefined ? undefined : entry.get(fileKey);
  if (file === undefined) editor.setScript(entry, scriptKey, code, scriptKey);
  else if (code !== lines(String(target.tool.spec[scriptKey] ?? '')))
    problems.push(`the script of "${target.tool.name}" is kept in ${String(file)} (${fileKey}): edit that file`);
}

/** The provider key holding the tool's script, when its type has one. */
function scriptKeyOf(kernel: Kernel, tool: ToolDefinition): string | undefined {
  return kernel.providers.get(tool.type)?.scriptKey;
}

function scriptProblems(kernel: Kernel, tool: ToolDefinition, key: string, code: string): string[] {
  const provider = kernel.providers.get(tool.type);
  if (!provider?.diagnose) return [];
  return provider
    .diagnose({ ...tool, spec: { ...tool.spec, [key]: lines(code) } })
    .map((problem) => `script doesn't compile: ${problem}`);
}

async function configProblems(kernel: Kernel, path: string, text: string): Promise<string[]> {
  try {
    await kernel.checkConfig(new Map([[path, text]]));
    return [];
  } catch (error) {
    const listed = FactorlyError.isInstance(error) ? error.data?.problems : undefined;
    return Array.isArray(listed) ? listed.map(String) : [messageOf(error)];
  }
}

/** Text from a form: browsers send CRLF line ends. */
function lines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

function numberOrText(text: string): string | number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return /^\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : trimmed;
}

function yamlOf(node: Node | undefined): string {
  if (node === undefined || node === null) return '';
  const doc = new Document();
  doc.contents = node;
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false }).trimEnd();
}

function scalarText(entry: YAMLMap | undefined, key: string): string {
  const value = entry?.get(key);
  return value === undefined || value === null ? '' : String(value);
}
