import type { ConfigProblem, JsonSchema } from 'factorly';
import type { RateLimit } from './policy-types.js';
import { parseRateLimit } from './shadow-keys.js';

/** One agent's rules as written: tools it may not call, the only tools it may call, how often it may call. */
export interface AgentRulesSpec {
  deny?: string[];
  allow?: string[];
  rate_limit?: string;
}

/** An agent's rules as the rules read them. */
export interface AgentRules {
  /** Globs of tool names this agent may not call. */
  deny?: readonly string[];
  /** When set, the agent may call only tools matching one of these globs. */
  allow?: readonly string[];
  /** Calls of this agent, all tools together, in any window of one unit. */
  rateLimit?: RateLimit;
}

const GLOBS = {
  type: 'array',
  items: { type: 'string', minLength: 1 },
  description: 'a list of tool names or globs (`*` any run of characters, `?` one)',
};

/** The schema of one agent's rules (`shadow.agents.<agent>`, a named token's `rules`). */
export const AGENT_RULES_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'a mapping of deny, allow and rate_limit',
  properties: {
    deny: GLOBS,
    allow: GLOBS,
    rate_limit: { type: 'string', description: 'a rate such as "100/min"' },
  },
  additionalProperties: false,
};

/** The top-level `shadow:` block: rules per agent, keyed by agent id or glob. */
export const SHADOW_BLOCK_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'a mapping with agents: {<agent id or glob>: {deny, allow, rate_limit}}',
  properties: { agents: { type: 'object', additionalProperties: AGENT_RULES_SCHEMA } },
  additionalProperties: false,
};

/** The checks a schema cannot make: the rate's unit and count. */
export function checkAgentRules(value: unknown, problem: ConfigProblem): void {
  const rate = (value as AgentRulesSpec | undefined)?.rate_limit;
  if (rate !== undefined) parseRateLimit(rate, (message) => problem(message, ['rate_limit']));
}

/** Checks every entry of the top-level `shadow:` block. */
export function checkShadowBlock(value: unknown, problem: ConfigProblem): void {
  const agents = (value as { agents?: Record<string, unknown> } | undefined)?.agents ?? {};
  for (const [agent, rules] of Object.entries(agents))
    checkAgentRules(rules, (message, path = []) => problem(message, ['agents', agent, ...path]));
}

/** Rules as written (already checked by the loader), as the rules read them. */
export function parseAgentRules(spec: AgentRulesSpec | undefined): AgentRules {
  return {
    ...(spec?.deny ? { deny: spec.deny } : {}),
    ...(spec?.allow ? { allow: spec.allow } : {}),
    ...(spec?.rate_limit === undefined ? {} : { rateLimit: parseRateLimit(spec.rate_limit) }),
  };
}
