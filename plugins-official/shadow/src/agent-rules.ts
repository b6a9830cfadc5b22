import { globMatcher, matchesAnyGlob } from '@factorly/text-kit';
import { parseAgentRules, type AgentRules, type AgentRulesSpec } from './agent-keys.js';

/** One set of rules for the agents a pattern names, and where it was written (for messages). */
export interface AgentEntry {
  pattern: string;
  /** `shadow.agents.cursor`, `serve.tokens[cursor].tools`: what a refusal names. */
  where: string;
  rules: AgentRules;
  matches(agentId: string): boolean;
}

/**
 * Rules a plugin adds for agents it knows by name (the MCP interface's named tokens): the token's
 * own `tools` allow-list and `rules`, which bind the agent whatever `shadow.agents` says.
 */
export interface ContributedAgent {
  /** The agent id (an exact name, not a glob). */
  agent: string;
  /** Where the agent is configured, for messages (`serve.tokens[cursor]`). */
  where: string;
  tools?: string[];
  rules?: AgentRulesSpec;
}

/** Why an agent may not call a tool. */
export interface AgentRefusal {
  entry: AgentEntry;
  reason: string;
}

/**
 * The rules per agent: `shadow.agents` (keyed by agent id or glob) and what plugins contribute for
 * agents they authenticate. An agent is bound by the most specific `shadow.agents` entry that
 * matches it (its exact id, else the glob with the most literal characters, else the first written)
 * and by every contributed entry naming it. Calls without an agent (the CLI) are not bound.
 */
export class AgentRuleBook {
  private configured: AgentEntry[] = [];
  private readonly contributed = new Map<string, AgentEntry[]>();

  /** The top-level `shadow:` block (as checked by the loader), or undefined when there is none. */
  configure(block: unknown): void {
    const agents = (block as { agents?: Record<string, AgentRulesSpec> } | undefined)?.agents ?? {};
    this.configured = Object.entries(agents).map(([pattern, spec]) =>
      entry(pattern, `shadow.agents.${pattern}`, parseAgentRules(spec)),
    );
  }

  /** Replaces what `source` contributes (every call of it says the whole list). */
  contribute(source: string, agents: readonly ContributedAgent[]): void {
    this.contributed.set(
      source,
      agents.flatMap(({ agent, where, tools, rules }) => [
        ...(tools ? [entry(agent, `${where}.tools`, { allow: tools })] : []),
        ...(rules ? [entry(agent, `${where}.rules`, parseAgentRules(rules))] : []),
      ]),
    );
  }

  /** The entries that bind `agentId`, most specific configured one first. */
  bindingOf(agentId: string | undefined): AgentEntry[] {
    if (agentId === undefined) return [];
    const own = mostSpecific(this.configured.filter((candidate) => candidate.matches(agentId)));
    const added = [...this.contributed.values()].flat().filter((candidate) => candidate.matches(agentId));
    return [...(own ? [own] : []), ...added];
  }

  /** Why `agentId` may not call `tool`, or undefined when its rules let it. */
  refusal(tool: string, agentId: string | undefined): AgentRefusal | undefined {
    for (const bound of this.bindingOf(agentId)) {
      const { deny, allow } = bound.rules;
      if (deny && matchesAnyGlob(deny, tool))
        return { entry: bound, reason: `tool "${tool}" is denied for agent "${agentId}" (${bound.where}.deny)` };
      if (allow && !matchesAnyGlob(allow, tool)) {
        const list = bound.where.endsWith('.tools') ? bound.where : `${bound.where}.allow`;
        return { entry: bound, reason: `tool "${tool}" is not allowed for agent "${agentId}" (${list})` };
      }
    }
    return undefined;
  }
}

function entry(pattern: string, where: string, rules: AgentRules): AgentEntry {
  return { pattern, where, rules, matches: globMatcher(pattern) };
}

const literalLength = (pattern: string): number => pattern.replace(/[*?]/g, '').length;
const isGlob = (pattern: string): boolean => /[*?]/.test(pattern);

/** The exact id, else the glob with the most literal characters; the first written on a tie. */
function mostSpecific(entries: AgentEntry[]): AgentEntry | undefined {
  let best: AgentEntry | undefined;
  for (const candidate of entries) {
    if (!best) best = candidate;
    else if (isGlob(best.pattern) && !isGlob(candidate.pattern)) best = candidate;
    else if (isGlob(best.pattern) && literalLength(candidate.pattern) > literalLength(best.pattern)) best = candidate;
  }
  return best;
}
