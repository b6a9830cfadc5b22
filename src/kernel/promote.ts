import { join, relative } from 'node:path';
import { Document, Scalar } from 'yaml';
import type { JsonValue } from '../events/catalog.js';
import { findCodeRun, type CodeRun } from '../events/code-runs.js';
import { FactorlyError } from './base/errors.js';
import { writeAtomically } from './base/write-atomic.js';
import type { ParameterSpec, ParamType, ToolDefinition } from './contracts/tool.js';
import type { Kernel } from './kernel.js';
import { toolNameProblem } from './config/tool-name.js';

export interface PromoteRequest {
  fromSha: string;
  name: string;
  description?: string;
  overwrite?: boolean;
  /** Adds `shadow.confirm: true` (the default: a promoted script asks before each call). */
  confirm?: boolean;
}

/** What a promotion would write; the web form shows it before anything is written. */
export interface PromotionPlan {
  run: CodeRun;
  name: string;
  description: string;
  parameters: ParameterSpec[];
  /** Project-relative path of the YAML file. */
  file: string;
  yaml: string;
  /** Why the script cannot be promoted as it is (compile errors, a taken name); empty when it can. */
  problems: string[];
}

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/**
 * Works out a promotion without writing anything: finds the run, infers parameters from the
 * values it ran with, renders the tool, and checks that the script compiles and the name is free.
 * The CLI and the web UI both call this, then `promote` — one code path.
 */
export async function planPromotion(kernel: Kernel, request: PromoteRequest): Promise<PromotionPlan> {
  if (!NAME.test(request.name) || toolNameProblem(request.name)) throw new FactorlyError('USAGE', `tool name "${request.name}" may only hold letters, digits, "_", "." and "-" (and no "..")`);
  const run = await findCodeRun(kernel.log(), request.fromSha);
  const description = request.description?.trim() || `Promoted from factorly.code run on ${run.at.slice(0, 10)} (sha ${run.sha.slice(0, 8)})`;
  const parameters = inferParameters(run.scriptParams);
  const file = join(kernel.paths.stateDir, `${request.name}.yaml`);
  const shown = relative(kernel.paths.baseDir, file);
  const definition: ToolDefinition = {
    name: request.name, type: 'code', description, hidden: false, parameters,
    shadow: request.confirm === false ? undefined : { owner: request.name, confirm: true },
    spec: { code: run.source }, source: { file: shown, line: 1 },
  };
  const problems = [...compileProblems(kernel, definition), ...nameProblems(kernel, request, shown)];
  return { run, name: request.name, description, parameters, file: shown, yaml: render(definition, run), problems };
}

/** Writes the planned tool (atomically) and records `tool.promoted`. */
export async function promote(kernel: Kernel, request: PromoteRequest): Promise<PromotionPlan> {
  const plan = await planPromotion(kernel, request);
  if (plan.problems.length > 0) throw new FactorlyError('PROMOTE_FAILED', plan.problems.join('; '));
  writeAtomically(join(kernel.paths.baseDir, plan.file), plan.yaml, 0o644);
  await kernel.log().append([
    { type: 'tool.promoted', data: { name: plan.name, fromSha: plan.run.sha, parameters: plan.parameters, file: plan.file } },
  ]);
  return plan;
}

/** One parameter per key of the run's params, sorted, typed from the JSON value, defaulting to it. */
export function inferParameters(values: Record<string, JsonValue>): ParameterSpec[] {
  return Object.keys(values)
    .sort()
    .map((name) => {
      const value = values[name];
      const spec: ParameterSpec = { name, type: typeOf(value), required: false };
      if (value !== null) spec.default = value;
      return spec;
    });
}

function typeOf(value: JsonValue): ParamType {
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'string') return 'string';
  return 'json';
}

function compileProblems(kernel: Kernel, definition: ToolDefinition): string[] {
  const provider = kernel.providers.get('code');
  if (!provider) return ['no code tool provider is installed, so the script cannot be checked'];
  const problems = [...(provider.prepare?.(definition).problems ?? []), ...(provider.diagnose?.(definition) ?? [])];
  return problems.map((p) => `script doesn't compile, refusing to write a broken tool: ${p}`);
}

function nameProblems(kernel: Kernel, request: PromoteRequest, file: string): string[] {
  const existing = kernel.registry.get(request.name);
  if (!existing) return [];
  if (!request.overwrite) return [`tool "${request.name}" already exists; pass --overwrite to replace it`];
  if (existing.source.file !== file) return [`tool "${request.name}" is defined in ${existing.source.file}:${existing.source.line}; edit or remove it there`];
  return [];
}

function render(tool: ToolDefinition, run: CodeRun): string {
  const body: Record<string, unknown> = { type: 'code', description: tool.description, code: tool.spec.code };
  if (tool.parameters.length > 0) {
    body.parameters = tool.parameters.map((p) => ({ name: p.name, type: p.type, ...(p.default === undefined ? {} : { default: p.default }) }));
  }
  // The YAML takes the config's spelling of the policy, not the parsed ShadowPolicy.
  if (tool.shadow?.confirm) body.shadow = { confirm: tool.shadow.confirm };
  const doc = new Document({ [tool.name]: body });
  const code = doc.getIn([tool.name, 'code'], true) as Scalar;
  code.type = Scalar.BLOCK_LITERAL;
  return `# Promoted from factorly.code run ${run.callId} (sha ${run.sha.slice(0, 12)})\n${doc.toString()}`;
}
