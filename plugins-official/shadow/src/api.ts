// The public API of the shadow plugin (`@factorly/plugin-shadow/api`): the policy its rules read from
// a tool's `shadow:` block, for other plugins to show (an MCP interface hides denied tools and marks
// the ones that ask first). Types and the token only; the plugin provides the value.
import type { Token, ToolDefinition } from 'factorly';
import type { ShadowPolicy } from './policy-types.js';

export type { LoopPolicy, RateLimit, RateScope, RateUnit, ShadowPolicy } from './policy-types.js';

/** What the official rules would decide about a tool regardless of the call (its policy, parsed). */
export interface ShadowPolicies {
  /** The tool's policy as the rules read it. */
  of(tool: ToolDefinition): ShadowPolicy;
  /** Every call of the tool is denied (`shadow.deny: true`, or the list names it). */
  denies(tool: ToolDefinition): boolean;
  /** Every call of the tool asks a person first. */
  confirms(tool: ToolDefinition): boolean;
}

export const ShadowTokens = {
  Policies: Symbol.for('factorly:shadow.policies') as Token<ShadowPolicies>,
} as const;
