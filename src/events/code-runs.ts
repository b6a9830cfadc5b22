import type { JsonValue, Params } from './catalog.js';
import type { EventLog } from './log.js';
import { FactorlyError } from '../kernel/base/errors.js';

/** The tool agents run ad-hoc scripts through. */
export const CODE_TOOL = 'factorly.code';

/** A recorded `factorly.code` run, as promotion needs it. */
export interface CodeRun {
  callId: string;
  sha: string;
  source: string;
  /** The params the script itself received (the run's `params` param). */
  scriptParams: Record<string, JsonValue>;
  at: string;
}

/**
 * The most recent `factorly.code` run whose source sha starts with `prefix`. Throws a message in
 * the reference's words when the prefix is too short, ambiguous (several distinct scripts), or
 * matches nothing.
 */
export async function findCodeRun(log: EventLog, rawPrefix: string): Promise<CodeRun> {
  const prefix = rawPrefix.trim().toLowerCase();
  if (!/^[0-9a-f]{4,64}$/.test(prefix)) {
    throw lookupError(
      prefix.length < 4 ? `sha prefix "${rawPrefix}" is too short (need at least 4 hex chars)` : `sha prefix "${rawPrefix}" is not hexadecimal`,
    );
  }
  const matches = new Map<string, CodeRun>();
  for await (const event of log.read({ reverse: true })) {
    if (event.type !== 'call.requested' || event.data.tool !== CODE_TOOL) continue;
    const sha = event.data.sourceSha;
    if (!sha?.startsWith(prefix) || matches.has(sha)) continue;
    matches.set(sha, toRun(event.data.callId, sha, event.data.params, event.at));
  }
  if (matches.size === 0) throw lookupError(`no factorly.code entry found with source_sha prefix "${rawPrefix}"`);
  if (matches.size > 1) {
    const shas = [...matches.keys()].sort().map((s) => `${s.slice(0, 12)}…`);
    throw lookupError(`sha prefix "${rawPrefix}" is ambiguous: matches ${matches.size} distinct scripts (${shas.join(', ')}) — use a longer prefix`);
  }
  return [...matches.values()][0];
}

function lookupError(message: string): FactorlyError {
  return new FactorlyError('PROMOTE_FAILED', message);
}

function toRun(callId: string, sha: string, params: Params, at: string): CodeRun {
  if (typeof params.code !== 'string') throw lookupError('entry has no `code` param — cannot recover source');
  return { callId, sha, source: params.code, scriptParams: scriptParamsOf(params.params), at };
}

function scriptParamsOf(value: JsonValue | undefined): Record<string, JsonValue> {
  if (value === undefined || value === null) return {};
  const parsed = typeof value === 'string' ? parseJson(value) : value;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw lookupError('entry `params` is not valid JSON: expected an object');
  }
  return parsed as Record<string, JsonValue>;
}

function parseJson(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw lookupError(`entry \`params\` is not valid JSON: ${(error as Error).message}`);
  }
}
