import { FactorlyError } from '../base/errors.js';
import type { CallHydrationRefused, CallParamsCapped, StoredText } from './catalog.js';
import type { Recorded } from './envelope.js';
import type { EventLog } from './log.js';
import { fold } from './projection.js';
import { auditProjection, type AuditEntry } from './projections/audit.js';

/** One call with its shadow decisions, what it returned, and the calls it made (a code tool's inner calls). */
export interface CallNode {
  entry: AuditEntry;
  /** In the order they were taken; `at` is when each was recorded. */
  decisions: { rule: string; decision: string; reason: string; at: string }[];
  /** The output as recorded: scrubbed and capped. */
  output?: StoredText;
  /** What a successful tool wrote to stderr (and a script's console.log lines). */
  diagnostics?: string;
  /** Params the log kept only a prefix of (`log.max_param_bytes`), with the size and digest of the whole. */
  capped?: CallParamsCapped['params'];
  /** Secret references the caller wrote in a hydrating param that its config does not list (left literal). */
  hydrationRefused?: CallHydrationRefused['params'];
  children: CallNode[];
}

export interface ScriptSource {
  sha: string;
  language: string;
  text: string;
}

export interface CallTree {
  root: CallNode;
  /** The root's script source, when it ran one (`source.recorded`). */
  source?: ScriptSource;
  /** Every script the tree ran (the root's and any inner code tool's), by sha. */
  sources: Record<string, ScriptSource>;
}

/**
 * Rebuilds a call and everything under it. Inner calls happen while their parent runs, so they
 * sit between the parent's `call.requested` and `call.completed`: only that range is read.
 */
export async function callTree(log: EventLog, callId: string): Promise<CallTree | undefined> {
  const own = await log.readCall(callId);
  if (own.length === 0) return undefined;
  const from = own[0].seq;
  const to = own.at(-1)!.seq;
  const inRange: Recorded[] = [];
  for await (const event of log.read({ from, to })) inRange.push(event);
  const audit = fold(inRange, auditProjection);
  const decisions = new Map<string, CallNode['decisions']>();
  const completions = new Map<string, Recorded<'call.completed'>>();
  const capped = new Map<string, CallParamsCapped['params']>();
  const refused = new Map<string, CallHydrationRefused['params']>();
  for (const event of inRange) {
    if (event.type === 'call.completed') completions.set(event.data.callId, event);
    if (event.type === 'call.params_capped') capped.set(event.data.callId, event.data.params);
    if (event.type === 'call.hydration_refused') refused.set(event.data.callId, event.data.params);
    if (event.type !== 'shadow.decided') continue;
    const list = decisions.get(event.data.callId) ?? [];
    list.push({ rule: event.data.rule, decision: event.data.decision, reason: event.data.reason, at: event.at });
    decisions.set(event.data.callId, list);
  }
  const node = (entry: AuditEntry): CallNode => {
    const done = completions.get(entry.callId)?.data;
    return {
      entry,
      decisions: decisions.get(entry.callId) ?? [],
      ...(done ? { output: done.output } : {}),
      ...(done?.diagnostics ? { diagnostics: done.diagnostics } : {}),
      ...(capped.has(entry.callId) ? { capped: capped.get(entry.callId) } : {}),
      ...(refused.has(entry.callId) ? { hydrationRefused: refused.get(entry.callId) } : {}),
      children: [...audit.byId.values()].filter((child) => child.parentId === entry.callId).map(node),
    };
  };
  const rootEntry = audit.byId.get(callId);
  if (!rootEntry) return undefined;
  const sources: Record<string, ScriptSource> = {};
  for (const entry of audit.byId.values()) {
    const sha = entry.sourceSha;
    if (sha === undefined || sources[sha] !== undefined) continue;
    const found = await findSource(log, sha, entry.seq);
    if (found) sources[sha] = found;
  }
  const sha = rootEntry.sourceSha;
  return { root: node(rootEntry), source: sha ? sources[sha] : undefined, sources };
}

/** The `source.recorded` of a sha, searched backwards from where the call started. */
async function findSource(log: EventLog, sha: string, before: number): Promise<ScriptSource | undefined> {
  for await (const event of log.read({ to: before, reverse: true })) {
    if (event.type === 'source.recorded' && event.data.sha === sha) {
      return { sha, language: event.data.language, text: event.data.source };
    }
  }
  return undefined;
}

/** Calls whose id equals `ref` or whose recorded hash starts with it (≥ 4 hex chars). */
export async function findCalls(log: EventLog, ref: string): Promise<string[]> {
  const direct = await log.readCall(ref);
  if (direct.length > 0) return [ref];
  const prefix = ref.toLowerCase();
  const found = new Set<string>();
  for await (const event of log.read()) {
    const callId = (event.data as { callId?: unknown }).callId;
    if (typeof callId === 'string' && event.hash.startsWith(prefix)) found.add(callId);
  }
  return [...found];
}

/** The one call `ref` names; refuses none or several with a message that lists the candidates. */
export async function findOneCall(log: EventLog, ref: string): Promise<string> {
  const ids = await findCalls(log, ref);
  if (ids.length === 0) throw new FactorlyError('CALL_NOT_FOUND', `no call matches "${ref}"`);
  if (ids.length > 1) {
    const shown = `${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''}`;
    throw new FactorlyError(
      'USAGE',
      `"${ref}" is ambiguous: it matches ${ids.length} calls (${shown}); use a longer prefix`,
    );
  }
  return ids[0];
}
