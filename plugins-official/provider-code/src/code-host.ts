import { FactorlyError } from '@factorly/error-kit';
import type { CallGateway, CallOutcome, JsonValue, Params, SandboxHost, ToolCall, ToolDefinition } from 'factorly';
import { describe, search } from './search.js';
import { toolPath } from './tool-paths.js';

/** The shadow rule that enforces `shadow.max_calls` (it names itself in `CallOutcome.blockedBy`). */
const MAX_CALLS_RULE = 'max-calls';

export interface HostLimits {
  /** Byte budget of one `tools.search` page. */
  searchPageBytes: number;
}

/**
 * The host side of one script run: what `factorly.*` and `tools.*` do. Every tool call re-enters
 * the full pipeline through the gateway as an inner call of this call's tree (`iface: code`, the same
 * agent, this call's context as parent), so shadow rules (`max_calls` among them), the tree's secret
 * scope, its deadline and the audit apply to it as to any other call.
 */
export class CodeHost implements SandboxHost {
  toolCalls = 0;

  constructor(
    private readonly gateway: CallGateway,
    private readonly parent: ToolCall,
    private readonly limits: HostLimits,
  ) {}

  async call(fn: string, args: JsonValue): Promise<JsonValue> {
    switch (fn) {
      case 'call':
        return this.callTool(args);
      case 'listTools':
        return this.listTools();
      case 'tool':
        return this.callPath(args);
      case 'search':
        return search(this.visible(), args, this.limits.searchPageBytes);
      case 'describe':
        return describe(this.visible(), args);
      default:
        throw new FactorlyError('METHOD_NOT_FOUND', `unknown host function "${fn}"`);
    }
  }

  private async callTool(args: JsonValue): Promise<JsonValue> {
    const { name, params } = readCall(args);
    const outcome = await this.inner(name, params);
    return {
      output: outcome.output,
      error: outcome.error ?? '',
      exitCode: outcome.exitCode,
      durationMs: outcome.durationMs,
    };
  }

  /** `tools.<namespace>.<tool>(args)`: the parsed output, or a descriptive error to catch. */
  private async callPath(args: JsonValue): Promise<JsonValue> {
    const { path, args: params } = args as { path: string; args: JsonValue };
    if (!isObject(params)) throw new FactorlyError('PARAMS_INVALID', `${toolPath(path)} takes one object argument`);
    // A held tool (its pinned definition changed) is known: the call is made, recorded and refused.
    const known = this.gateway.tools(this.parent.sessionId, { held: true }).some((tool) => tool.name === path);
    if (!known)
      throw new FactorlyError(
        'TOOL_NOT_FOUND',
        `UnknownTool: ${toolPath(path)} does not exist; use tools.search({ query }) to find tools`,
      );
    const outcome = await this.inner(path, params);
    if (outcome.exitCode !== 0 || outcome.error) {
      throw new FactorlyError(
        'TOOL_FAILED',
        `${toolPath(path)} failed (${outcome.status}, exit ${outcome.exitCode}): ${outcome.error || outcome.output}`,
      );
    }
    return parseOutput(outcome.output);
  }

  /** One inner call. A refusal by `max_calls` is thrown, so the script can catch it and decide (as a budget error, not a tool's result). */
  private async inner(name: string, params: Params): Promise<CallOutcome> {
    this.toolCalls += 1;
    const { agentId, sessionId, context } = this.parent;
    const outcome = await this.gateway.call({ tool: name, params, iface: 'code', agentId, sessionId, parent: context });
    if (outcome.status === 'blocked' && outcome.blockedBy === MAX_CALLS_RULE)
      throw new FactorlyError('CALL_BLOCKED', outcome.error ?? 'max_calls refused this call');
    return outcome;
  }

  private listTools(): JsonValue {
    return this.visible().map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters.map((spec) => ({
        name: spec.name,
        type: spec.type,
        required: spec.required,
        description: spec.description ?? '',
        default: spec.default ?? null,
      })),
    }));
  }

  /** Visible tools by name (the gateway gives catalogue order). */
  private visible(): ToolDefinition[] {
    return this.gateway
      .tools()
      .filter((tool) => !tool.hidden)
      .sort((a, b) => a.name.localeCompare(b.name));
  }
}

function readCall(args: JsonValue): { name: string; params: Params } {
  const { name, params } = (isObject(args) ? args : {}) as { name?: JsonValue; params?: JsonValue };
  if (typeof name !== 'string' || name === '')
    throw new FactorlyError('PARAMS_INVALID', 'factorly.call(name, params): name must be a tool name');
  if (!isObject(params))
    throw new FactorlyError('PARAMS_INVALID', `factorly.call("${name}", params): params must be an object`);
  return { name, params };
}

function isObject(value: JsonValue | undefined): value is Params {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON output is handed to scripts parsed; other text without the one line break CLIs end with. */
function parseOutput(output: string): JsonValue {
  try {
    return JSON.parse(output) as JsonValue;
  } catch {
    return output.replace(/\r?\n$/, '');
  }
}
