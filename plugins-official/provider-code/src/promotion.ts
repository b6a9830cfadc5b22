import { FactorlyError } from '@factorly/error-kit';
import type { JsonValue, ParameterSpec, ParamType, PromotableRun, PromotedTool } from 'factorly';
import { CODE_TOOL } from './api.js';

/**
 * A script run as a named code tool: its source as `code:`, one parameter per key of the params the
 * script received (sorted, typed from the value, defaulting to it), and, unless told otherwise,
 * `shadow.confirm: true`, so a promoted script asks before each call.
 */
export function promoteRun(run: PromotableRun): PromotedTool {
  const values = run.tool.spec.builtin === CODE_TOOL ? scriptParamsOf(run.params.params) : run.params;
  return {
    type: 'code',
    spec: { code: run.source.source },
    parameters: inferParameters(values),
    ...(run.confirm ? { shadow: { confirm: true } } : {}),
  };
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

/** The `params` param of a `factorly.code` run: the object the script received (given as JSON text or as an object). */
function scriptParamsOf(value: JsonValue | undefined): Record<string, JsonValue> {
  if (value === undefined || value === null) return {};
  const parsed = typeof value === 'string' ? parseJson(value) : value;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new FactorlyError('PROMOTE_FAILED', "the run's `params` is not valid JSON: expected an object");
  return parsed as Record<string, JsonValue>;
}

function parseJson(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new FactorlyError('PROMOTE_FAILED', `the run's \`params\` is not valid JSON: ${(error as Error).message}`);
  }
}
