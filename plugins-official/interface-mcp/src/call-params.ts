import { FactorlyError } from '@factorly/error-kit';
import type { Params } from 'factorly';

/** A `tools/call` request's params, checked: what the SDK's own schema would reject, said in one line. */
export interface CallParams {
  name: string;
  args: Params;
  /** Present when the client asks for the call to run as a task (MCP 2025-11-25). */
  task?: { ttl?: number };
}

export function readCallParams(params: unknown): CallParams {
  if (!isObject(params))
    throw invalid(`tools/call needs params {"name": string, "arguments": object}, got ${describe(params)}`);
  const { name, arguments: args, task } = params;
  if (typeof name !== 'string' || name === '')
    throw invalid(`tools/call: "name" must be a non-empty string, got ${describe(name)}`);
  if (args !== undefined && !isObject(args))
    throw invalid(`tools/call: "arguments" must be an object, got ${describe(args)}`);
  if (task !== undefined && !isObject(task))
    throw invalid(`tools/call: "task" must be an object, got ${describe(task)}`);
  const ttl = isObject(task) ? task.ttl : undefined;
  if (ttl !== undefined && ttl !== null && (typeof ttl !== 'number' || !(ttl >= 0)))
    throw invalid(`tools/call: "task.ttl" must be a number of milliseconds, got ${describe(ttl)}`);
  return {
    name,
    args: (args ?? {}) as Params,
    ...(task === undefined ? {} : { task: typeof ttl === 'number' ? { ttl } : {} }),
  };
}

function invalid(message: string): FactorlyError {
  return new FactorlyError('PARAMS_INVALID', message);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `${typeof value} ${JSON.stringify(value)?.slice(0, 40)}`;
}
