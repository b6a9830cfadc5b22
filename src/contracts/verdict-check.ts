import { DECISIONS, type Decision, type JsonValue } from '../events/catalog.js';
import type { ShadowRule, ShadowVerdict } from './extensions.js';

/** How much of a malformed verdict is quoted in the decision that records it. */
const SHOWN_CHARS = 300;
/**
 * The most a verdict may say: a reason is one message for a person, and facts are what a rule's
 * fold needs. Both are stored in the log with every decision, so a verdict over either bound is
 * malformed (denied, quoted short), never stored whole or cut silently.
 */
export const MAX_REASON_CHARS = 4096;
export const MAX_FACTS_BYTES = 64 * 1024;

/**
 * A rule's answer checked at the boundary: `undefined` (nothing to say) or a well-formed verdict (a
 * known decision, a string reason, JSON facts, a positive confirm timeout), copied field by field so
 * nothing the rule keeps a hold of can change it later. Anything else is a deny naming the rule and
 * quoting what it returned, whatever the rule declares about failing open: a rule that answers
 * nonsense is broken, not unavailable.
 */
export function checkVerdict(rule: ShadowRule, returned: unknown): ShadowVerdict | undefined {
  if (returned === undefined) return undefined;
  let problem: string | undefined;
  let verdict: ShadowVerdict | undefined;
  try {
    [problem, verdict] = wellFormed(returned);
  } catch (error) {
    problem = `reading it threw (${error instanceof Error ? error.message : String(error)})`;
  }
  if (verdict) return verdict;
  const shown = describe(returned);
  return {
    decision: 'deny',
    reason: `rule "${rule.name}" returned a malformed verdict (failing closed): ${problem}; it returned ${shown}`,
    facts: { returned: shown },
  };
}

function wellFormed(value: unknown): [string, undefined] | [undefined, ShadowVerdict] {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return ['a verdict is an object {decision, reason}', undefined];
  const own = (key: string): unknown =>
    Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  const decision = own('decision');
  if (typeof decision !== 'string' || !(DECISIONS as readonly string[]).includes(decision))
    return [`decision must be one of ${DECISIONS.join(', ')}`, undefined];
  const reason = own('reason');
  if (typeof reason !== 'string') return ['reason must be a string', undefined];
  if (reason.length > MAX_REASON_CHARS)
    return [`reason is ${reason.length} characters, over the bound of ${MAX_REASON_CHARS}`, undefined];
  const facts = own('facts');
  if (facts !== undefined && !isJsonObject(facts)) return ['facts must be an object of JSON values', undefined];
  const factsJson = facts === undefined ? undefined : JSON.stringify(facts);
  const factsBytes = factsJson === undefined ? 0 : Buffer.byteLength(factsJson, 'utf8');
  if (factsBytes > MAX_FACTS_BYTES)
    return [`facts are ${factsBytes} bytes as JSON, over the bound of ${MAX_FACTS_BYTES}`, undefined];
  const timeoutMs = own('timeoutMs');
  if (timeoutMs !== undefined && !(typeof timeoutMs === 'number' && Number.isFinite(timeoutMs) && timeoutMs > 0))
    return ['timeoutMs must be a positive number of milliseconds', undefined];
  const verdict: ShadowVerdict = { decision: decision as Decision, reason };
  if (factsJson !== undefined) verdict.facts = JSON.parse(factsJson) as Record<string, JsonValue>;
  if (timeoutMs !== undefined) verdict.timeoutMs = timeoutMs as number;
  return [undefined, verdict];
}

function isJsonObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && isJson(value, 0);
}

function isJson(value: unknown, depth: number): boolean {
  if (depth > 32) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((item) => isJson(item, depth + 1));
  if (typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return (
    (proto === Object.prototype || proto === null) && Object.values(value).every((item) => isJson(item, depth + 1))
  );
}

/** What the rule returned, as JSON when it is, and cut short. */
function describe(value: unknown): string {
  let text: string;
  try {
    text =
      typeof value === 'bigint' || typeof value === 'symbol' || typeof value === 'function'
        ? String(value)
        : (JSON.stringify(value) ?? String(value));
  } catch {
    text = `${Object.prototype.toString.call(value)} (not JSON)`;
  }
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text;
}
