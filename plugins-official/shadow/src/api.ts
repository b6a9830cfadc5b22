// The public API of the shadow plugin (`@factorly/plugin-shadow/api`): the policy its rules read from
// a tool's `shadow:` block, for other plugins to show (an MCP interface hides denied tools and marks
// the ones that ask first), and the rules per agent other plugins add to (an interface's named
// tokens). Types, the tokens and the schema of one agent's rules; the plugin provides the values.
import type { Token, ToolDefinition } from 'factorly';
import type { ContributedAgent } from './agent-rules.js';
import type { ShadowPolicy } from './policy-types.js';

export type { LoopPolicy, RateLimit, RateScope, RateUnit, ShadowPolicy, StandingPolicy } from './policy-types.js';
export type { ContributedAgent } from './agent-rules.js';
export type { AgentRulesSpec } from './agent-keys.js';
export { AGENT_RULES_SCHEMA, checkAgentRules } from './agent-keys.js';

/** What the official rules would decide about a tool regardless of the call (its policy, parsed). */
export interface ShadowPolicies {
  /** The tool's policy as the rules read it. */
  of(tool: ToolDefinition): ShadowPolicy;
  /**
   * Every call of the tool is denied (`shadow.deny: true`, or the list names it) or, with an
   * agent, every call of it by that agent (its rules in `shadow.agents`, a named token's `tools`).
   */
  denies(tool: ToolDefinition, agentId?: string): boolean;
  /** Every call of the tool asks a person first. */
  confirms(tool: ToolDefinition): boolean;
}

/**
 * Rules per agent that a plugin adds for the agents it authenticates (the MCP interface: each named
 * token's `tools` and `rules`). Add them from the plugin's config block, at init and on every change
 * of it, so `factorly logs replay --check` re-derives decisions under the block recorded then.
 */
export interface AgentRulesRegistry {
  /** Replaces everything `source` added before. */
  contribute(source: string, agents: readonly ContributedAgent[]): void;
}

export const ShadowTokens = {
  Policies: Symbol.for('factorly:shadow.policies') as Token<ShadowPolicies>,
  AgentRules: Symbol.for('factorly:shadow.agent-rules') as Token<AgentRulesRegistry>,
} as const;
