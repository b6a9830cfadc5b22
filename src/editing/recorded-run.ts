import type { Params } from '../events/catalog.js';
import type { EventLog } from '../events/log.js';
import { FactorlyError } from '../base/errors.js';
import type { CallSource } from '../contracts/tool.js';

/** A recorded call that ran source code (`sourceSha` on its `call.requested`), as promotion needs it. */
export interface RecordedRun {
  callId: string;
  /** The tool the run was a call of. */
  tool: string;
  /** Its params as recorded. */
  params: Params;
  /** The code it ran, from `source.recorded` (whole, whatever the log's bounds did to the params). */
  source: CallSource;
  at: string;
}

/**
 * The most recent run whose source sha starts with `prefix`. Throws a message in the reference's
 * words when the prefix is too short, ambiguous (several distinct sources), or matches nothing.
 */
export async function findRun(log: EventLog, rawPrefix: string): Promise<RecordedRun> {
  const prefix = rawPrefix.trim().toLowerCase();
  if (!/^[0-9a-f]{4,64}$/.test(prefix)) {
    throw lookupError(
      prefix.length < 4
        ? `sha prefix "${rawPrefix}" is too short (need at least 4 hex chars)`
        : `sha prefix "${rawPrefix}" is not hexadecimal`,
    );
  }
  const runs = new Map<string, Omit<RecordedRun, 'source'>>();
  const sources = new Map<string, CallSource>();
  for await (const event of log.read({ reverse: true })) {
    if (event.type === 'source.recorded' && runs.has(event.data.sha)) sources.set(event.data.sha, event.data);
    if (event.type !== 'call.requested') continue;
    const sha = event.data.sourceSha;
    if (!sha?.startsWith(prefix) || runs.has(sha)) continue;
    runs.set(sha, { callId: event.data.callId, tool: event.data.tool, params: event.data.params, at: event.at });
  }
  if (runs.size === 0) throw lookupError(`no recorded run found with source_sha prefix "${rawPrefix}"`);
  if (runs.size > 1) {
    const shas = [...runs.keys()].sort().map((s) => `${s.slice(0, 12)}…`);
    throw lookupError(
      `sha prefix "${rawPrefix}" is ambiguous: matches ${runs.size} distinct scripts (${shas.join(', ')}) — use a longer prefix`,
    );
  }
  const [[sha, run]] = [...runs];
  const source = sources.get(sha);
  if (!source)
    throw lookupError(`the log has no source.recorded for sha ${sha.slice(0, 12)}: cannot recover the source`);
  return { ...run, source };
}

function lookupError(message: string): FactorlyError {
  return new FactorlyError('PROMOTE_FAILED', message);
}
