import { createHash } from 'node:crypto';
import type {
  CallGateway,
  CallSource,
  CompileResult,
  JsonValue,
  KeyedRegistry,
  Params,
  SandboxEngine,
  ToolCall,
  ToolDefinition,
  ToolProvider,
  ToolResult,
} from 'factorly';
import { CODE_TOOL } from './api.js';
import { promoteRun } from './promotion.js';
import { CodeHost } from './code-host.js';
import { checkCodeSpec, CODE_FILE_KEYS, CODE_KEYS, DEFAULT_ENGINE, readCodeSpec } from './code-spec.js';
import { MAX_SCRIPT_DEPTH, ScriptNesting } from './nesting.js';
import { capOutput, outputOf } from './output.js';

/** Executor v2's default output budget; a search page gets a quarter of the tool's. */
const DEFAULT_OUTPUT_BUDGET = 65_536;

/**
 * `type: code` tools and the `factorly.code` builtin: the script runs in a sandbox engine and its
 * only way out is the host (`factorly.call`, `tools.*`), which re-enters the call pipeline.
 * Scripts are compiled once per engine and source digest; a script that does not compile stays
 * listed and each call says why.
 */
export class CodeProvider implements ToolProvider {
  readonly type = 'code';
  readonly keys = CODE_KEYS;
  readonly fileKeys = CODE_FILE_KEYS;
  readonly scriptKey = 'code';
  /** A script may call any tool: the kernel learns their secrets before the script's params are recorded. */
  readonly callsOtherTools = true;
  readonly promote = promoteRun;
  private readonly compiled = new Map<string, CompileResult>();
  private readonly nesting = new ScriptNesting();
  /** The config's `defaults.engine`, for scripts whose tool names none. */
  private projectEngine?: string;

  constructor(
    // Only reads the installed engines (the host fills the registry), so any read-only view of them will do.
    private readonly engines: Pick<KeyedRegistry<SandboxEngine>, 'get' | 'keys' | 'values'>,
    private readonly gateway: CallGateway,
    private readonly warn: (message: string) => void,
  ) {}

  prepare(tool: ToolDefinition) {
    const checked = checkCodeSpec(tool, this.engines.keys());
    if (checked.problems.length === 0 && typeof tool.spec.code === 'string') {
      const result = this.compile(tool, String(tool.spec.code));
      if (result && !result.ok)
        this.warn(`tool "${tool.name}" (${tool.source.file}:${tool.source.line}): ${compileError(result)}`);
    }
    return checked;
  }

  /** Compile errors of a definition's script (a broken script loads, but is never written by promote). */
  diagnose(tool: ToolDefinition): string[] {
    const code = tool.spec.code;
    if (typeof code !== 'string') return [];
    const result = this.compile(tool, code);
    if (!result || result.ok) return [];
    return result.diagnostics.map((d) => `${d.message} (line ${d.line}, column ${d.column})`);
  }

  /** Sets (or clears) the project-wide engine, from the config's `defaults: {engine: …}`. */
  useProjectEngine(name: string | undefined): void {
    this.projectEngine = name;
  }

  /** The script a call will run and the engine that will run it, for the audit trail (`source_sha`, `engine`, `source.recorded`). */
  sourceOf(tool: ToolDefinition, params: Params): CallSource | undefined {
    const source = sourceText(tool, params);
    if (source === undefined) return undefined;
    const engine = this.engineFor(tool);
    return {
      sha: sha256(source),
      language: 'javascript',
      source,
      ...(engine ? { engine: { name: engine.name, version: engine.version ?? 'unknown' } } : {}),
    };
  }

  /** The engine that will run the tool starts its process now (`factorly call` of a code tool). */
  expect(tool: ToolDefinition): void {
    this.engineFor(tool)?.warm?.();
  }

  async execute(call: ToolCall): Promise<ToolResult> {
    const source = sourceText(call.tool, call.params);
    if (source === undefined) return { output: '', error: `${CODE_TOOL} needs the code parameter`, exitCode: 1 };
    const params = scriptParams(call);
    if (params === undefined)
      return { output: '', error: 'params must be a JSON object, e.g. {"who":"world"}', exitCode: 1 };
    const engine = this.engineFor(call.tool);
    if (!engine)
      return {
        output: '',
        error: `no script engine is installed (wanted "${this.wantedEngine(call.tool)}")`,
        exitCode: 2,
      };
    const compiled = this.compile(call.tool, source)!;
    if (!compiled.ok) return { output: '', error: compileError(compiled), exitCode: 1 };
    const spec = readCodeSpec(call.tool);
    const host = new CodeHost(this.gateway, call, {
      searchPageBytes: Math.floor((call.tool.maxOutput ?? DEFAULT_OUTPUT_BUDGET) / 4),
    });
    const depth = this.nesting.depthOf(call.parentId);
    if (depth >= MAX_SCRIPT_DEPTH) {
      return {
        output: '',
        error: `scripts nest at most ${MAX_SCRIPT_DEPTH} deep: "${call.tool.name}" would run inside ${depth} running scripts`,
        exitCode: 1,
      };
    }
    const budget = { timeoutMs: call.timeoutMs, memoryBytes: spec.memoryBytes, signal: call.signal, nested: depth > 0 };
    const result = await this.nesting.within(call.callId, depth, () =>
      engine.run(compiled.script, params, host, budget),
    );
    const usage = {
      durationMs: result.usage.durationMs,
      toolCalls: host.toolCalls,
      hostCalls: result.usage.hostCalls,
      ...(result.usage.memoryBytes === undefined ? {} : { memoryBytes: result.usage.memoryBytes }),
    };
    const diagnostics = result.logs.length > 0 ? `${result.logs.join('\n')}\n` : undefined;
    if (result.exitCode !== 0)
      return { output: '', error: result.error ?? 'the script failed', exitCode: result.exitCode, diagnostics, usage };
    return { output: capOutput(outputOf(result.value), call.tool.maxOutput), exitCode: 0, diagnostics, usage };
  }

  /** The tool's own `engine:`, else the project's `defaults.engine`, else quickjs (else any installed one). */
  private engineFor(tool: ToolDefinition): SandboxEngine | undefined {
    const wanted = readCodeSpec(tool).engine ?? this.projectEngine;
    if (wanted) return this.engines.get(wanted);
    return this.engines.get(DEFAULT_ENGINE) ?? this.engines.values()[0];
  }

  private wantedEngine(tool: ToolDefinition): string {
    return readCodeSpec(tool).engine ?? this.projectEngine ?? DEFAULT_ENGINE;
  }

  private compile(tool: ToolDefinition, source: string): CompileResult | undefined {
    const engine = this.engineFor(tool);
    if (!engine) return undefined;
    const key = `${engine.name}:${sha256(source)}`;
    let result = this.compiled.get(key);
    if (!result) {
      result = engine.compile(source);
      this.compiled.set(key, result);
    }
    return result;
  }
}

function sourceText(tool: ToolDefinition, params: Params): string | undefined {
  if (tool.spec.builtin === CODE_TOOL) return typeof params.code === 'string' ? params.code : undefined;
  return typeof tool.spec.code === 'string' ? tool.spec.code : undefined;
}

function scriptParams(call: ToolCall): JsonValue | undefined {
  if (call.tool.spec.builtin !== CODE_TOOL) return call.params;
  const params = call.params.params ?? {};
  return typeof params === 'object' && params !== null && !Array.isArray(params) ? params : undefined;
}

function compileError(result: Extract<CompileResult, { ok: false }>): string {
  const first = result.diagnostics[0];
  return `script failed to compile: ${first ? `${first.message} (line ${first.line}, column ${first.column})` : 'unknown error'}`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
