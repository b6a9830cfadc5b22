import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Document, Scalar, visit } from 'yaml';
import { FactorlyError, messageOf } from '../base/errors.js';
import { writeAtomically } from '../base/write-atomic.js';
import type { PromotedTool, ToolDefinition } from '../contracts/tool.js';
import type { Kernel } from '../kernel/kernel.js';
import { toolNameProblem } from '../config/tool-name.js';
import { findRun, type RecordedRun } from './recorded-run.js';

export type { RecordedRun } from './recorded-run.js';
import type { PromoteRequest, PromotionPlan } from './contracts.js';
export type { PromoteRequest, PromotionPlan } from './contracts.js';

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/**
 * Works out a promotion without writing anything: finds the run, asks the provider of the tool it
 * was a call of what entry does the same (`ToolProvider.promote`), renders it, and checks that it
 * loads and the name is free. The CLI and the web UI both call this, then `promote` — one code path.
 */
export async function planPromotion(kernel: Kernel, request: PromoteRequest): Promise<PromotionPlan> {
  if (!NAME.test(request.name) || toolNameProblem(request.name))
    throw new FactorlyError(
      'USAGE',
      `tool name "${request.name}" may only hold letters, digits, "_", "." and "-" (and no "..")`,
    );
  const run = await findRun(kernel.log(), request.fromSha);
  const promoted = promotedFrom(kernel, run, request.confirm !== false);
  const description =
    request.description?.trim() ||
    `Promoted from ${run.tool} run on ${run.at.slice(0, 10)} (sha ${run.source.sha.slice(0, 8)})`;
  const file = join(kernel.paths.stateDir, `${request.name}.yaml`);
  const shown = relative(kernel.paths.baseDir, file);
  const definition: ToolDefinition = {
    name: request.name,
    type: promoted.type,
    description,
    hidden: false,
    parameters: promoted.parameters,
    ...(promoted.shadow ? { shadow: promoted.shadow } : {}),
    spec: promoted.spec,
    source: { file: shown, line: 1 },
  };
  const problems = [...compileProblems(kernel, definition), ...nameProblems(kernel, request, shown)];
  const script = request.toFile ? scriptFile(kernel, request, promoted, run, problems) : undefined;
  return {
    run,
    name: request.name,
    description,
    parameters: promoted.parameters,
    file: shown,
    yaml: render(definition, script ? script.promoted : promoted, run),
    ...(script ? { script: script.written } : {}),
    problems,
  };
}

const EXTENSIONS: Record<string, string> = { javascript: 'js' };

/**
 * `--to-file`: the script moves out of the entry into `<name>.<ext>` beside the YAML, named by the
 * provider's file key (`code_file`). A type without one, or a file already there (unless
 * `overwrite`), is a problem.
 */
function scriptFile(
  kernel: Kernel,
  request: PromoteRequest,
  promoted: PromotedTool,
  run: RecordedRun,
  problems: string[],
): { promoted: PromotedTool; written: { file: string; text: string } } | undefined {
  const fileKeys = Object.entries(kernel.providers.get(promoted.type)?.fileKeys ?? {});
  const [fileKey, key] = fileKeys.find(([, target]) => typeof promoted.spec[target] === 'string') ?? [];
  if (!fileKey || !key) {
    problems.push(`tools of type "${promoted.type}" cannot keep their script in a file of its own`);
    return undefined;
  }
  const name = `${request.name}.${EXTENSIONS[run.source.language] ?? 'txt'}`;
  const file = relative(kernel.paths.baseDir, join(kernel.paths.stateDir, name));
  if (existsSync(join(kernel.paths.baseDir, file)) && !request.overwrite)
    problems.push(`${file} already exists; pass --overwrite to replace it`);
  const { [key]: text, ...spec } = promoted.spec;
  return { promoted: { ...promoted, spec: { ...spec, [fileKey]: name } }, written: { file, text: String(text) } };
}

/** Writes the planned tool (atomically) and records `tool.promoted`. */
export async function promote(kernel: Kernel, request: PromoteRequest): Promise<PromotionPlan> {
  const plan = await planPromotion(kernel, request);
  if (plan.problems.length > 0) throw new FactorlyError('PROMOTE_FAILED', plan.problems.join('; '));
  // The script first: the entry naming it is written once it is there.
  if (plan.script) writeAtomically(join(kernel.paths.baseDir, plan.script.file), plan.script.text, 0o644);
  writeAtomically(join(kernel.paths.baseDir, plan.file), plan.yaml, 0o644);
  await kernel.log().append([
    {
      type: 'tool.promoted',
      data: { name: plan.name, fromSha: plan.run.source.sha, parameters: plan.parameters, file: plan.file },
    },
  ]);
  return plan;
}

function promotedFrom(kernel: Kernel, run: RecordedRun, confirm: boolean): PromotedTool {
  const tool = kernel.registry.get(run.tool);
  if (!tool)
    throw new FactorlyError('PROMOTE_FAILED', `the run was a call of "${run.tool}", which this config no longer has`);
  const provider = kernel.providers.get(tool.type);
  if (!provider)
    throw new FactorlyError(
      'PROVIDER_MISSING',
      `a run of "${run.tool}" cannot be promoted: no installed plugin provides tools of type "${tool.type}"`,
    );
  let promoted: PromotedTool | undefined;
  try {
    promoted = provider.promote?.({ callId: run.callId, tool, params: run.params, source: run.source, confirm });
  } catch (error) {
    throw new FactorlyError('PROMOTE_FAILED', messageOf(error), { cause: error });
  }
  if (!promoted)
    throw new FactorlyError(
      'PROMOTE_FAILED',
      `a run of "${run.tool}" cannot be promoted: the provider of type "${tool.type}" does not promote its runs`,
    );
  return promoted;
}

function compileProblems(kernel: Kernel, definition: ToolDefinition): string[] {
  const provider = kernel.providers.get(definition.type);
  if (!provider) return [`no provider of type "${definition.type}" is installed, so the new tool cannot be checked`];
  const problems = [...(provider.prepare?.(definition).problems ?? []), ...(provider.diagnose?.(definition) ?? [])];
  return problems.map((p) => `script doesn't compile, refusing to write a broken tool: ${p}`);
}

function nameProblems(kernel: Kernel, request: PromoteRequest, file: string): string[] {
  const existing = kernel.registry.get(request.name);
  if (!existing) return [];
  if (!request.overwrite) return [`tool "${request.name}" already exists; pass --overwrite to replace it`];
  if (existing.source.file !== file)
    return [
      `tool "${request.name}" is defined in ${existing.source.file}:${existing.source.line}; edit or remove it there`,
    ];
  return [];
}

function render(tool: ToolDefinition, promoted: PromotedTool, run: RecordedRun): string {
  const body: Record<string, unknown> = { type: tool.type, description: tool.description, ...promoted.spec };
  if (tool.parameters.length > 0) {
    body.parameters = tool.parameters.map((p) => ({
      name: p.name,
      type: p.type,
      ...(p.default === undefined ? {} : { default: p.default }),
    }));
  }
  if (promoted.shadow) body.shadow = promoted.shadow;
  const doc = new Document({ [tool.name]: body });
  // Multi-line strings (a script) read best as literal blocks.
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && node.value.includes('\n')) node.type = Scalar.BLOCK_LITERAL;
    },
  });
  return `# Promoted from ${run.tool} run ${run.callId} (sha ${run.source.sha.slice(0, 12)})\n${doc.toString()}`;
}
