import type { Recorded } from '../envelope.js';
import type { Projection } from '../projection.js';
import { NO_AGENT } from './dashboard.js';

/** What one agent did over the whole log: its sessions, its calls by how they ended, the tools it called. */
export interface AgentActivity {
  /** The agent id its calls carry, or `iface:<name>` for calls no agent made (a terminal's `iface:cli`). */
  agent: string;
  /** `session.opened` events under this agent id. */
  sessions: number;
  calls: number;
  /** Calls by how they ended (`success`, `error`, `blocked`, …, `interrupted`); calls still running are not in it. */
  statuses: Map<string, number>;
  /** Calls by tool, at most `MAX_TOOLS` names; the rest are counted under `OTHER_TOOLS`. */
  tools: Map<string, number>;
  /** When its first and newest session or call was recorded (ISO). */
  firstSeen: string;
  lastSeen: string;
}

export interface AgentActivityState {
  agents: Map<string, AgentActivity>;
  /** Calls requested and not completed yet, with the agent their completion counts for. */
  open: Map<string, { agent: string; at: number }>;
  /** Epoch ms of the newest call folded. */
  latest: number;
}

/** Distinct tool names kept per agent: an agent can ask for any name (an unknown tool is a blocked call). */
const MAX_TOOLS = 100;
export const OTHER_TOOLS = '(other tools)';
/** A call open this long was left by a writer that is gone; its completion can no longer come. */
const OPEN_FOR_MS = 7 * 86_400_000;

/**
 * The agents page's figures as a pure fold: per agent (by the id its calls carry, so it works
 * whatever an agent id stands for), its sessions, calls, how they ended and which tools it called.
 * An inner call of a script counts for its root's agent. State grows by one entry per agent.
 */
export const agentActivityProjection: Projection<AgentActivityState> & { readonly version: number } = {
  name: 'agent-activity',
  version: 1,
  init: () => ({ agents: new Map(), open: new Map(), latest: 0 }),
  evolve(state, event) {
    if (event.type === 'session.opened') opened(state, event);
    else if (event.type === 'call.requested') requested(state, event);
    else if (event.type === 'call.completed') ended(state, event.data.callId, String(event.data.status));
    else if (event.type === 'call.interrupted') ended(state, event.data.callId, 'interrupted');
    return state;
  },
};

function activity(state: AgentActivityState, agent: string, at: string): AgentActivity {
  let found = state.agents.get(agent);
  if (!found) {
    found = { agent, sessions: 0, calls: 0, statuses: new Map(), tools: new Map(), firstSeen: at, lastSeen: at };
    state.agents.set(agent, found);
  }
  if (at > found.lastSeen) found.lastSeen = at;
  return found;
}

function opened(state: AgentActivityState, event: Recorded<'session.opened'>): void {
  const { agentId } = event.data;
  if (typeof agentId !== 'string' || agentId === '') return;
  activity(state, agentId, event.at).sessions += 1;
}

function requested(state: AgentActivityState, event: Recorded<'call.requested'>): void {
  const at = Date.parse(event.at);
  if (!Number.isFinite(at)) return;
  const { callId, rootId, tool, iface, agentId } = event.data;
  const agent = agentId ?? state.open.get(rootId)?.agent ?? `${NO_AGENT}${iface}`;
  const figures = activity(state, agent, event.at);
  figures.calls += 1;
  const name = figures.tools.has(tool) || figures.tools.size < MAX_TOOLS ? tool : OTHER_TOOLS;
  figures.tools.set(name, (figures.tools.get(name) ?? 0) + 1);
  state.open.set(callId, { agent, at });
  if (at > state.latest) forgetAbandoned(state, at);
}

function ended(state: AgentActivityState, callId: string, status: string): void {
  const call = state.open.get(callId);
  if (!call) return;
  state.open.delete(callId);
  const figures = state.agents.get(call.agent);
  if (figures) figures.statuses.set(status, (figures.statuses.get(status) ?? 0) + 1);
}

/** Moves the newest time forward; once a day, drops calls open for longer than any writer lives. */
function forgetAbandoned(state: AgentActivityState, at: number): void {
  const day = Math.floor(at / 86_400_000);
  const crossed = day !== Math.floor(state.latest / 86_400_000);
  state.latest = at;
  if (!crossed) return;
  for (const [callId, call] of state.open) if (call.at < at - OPEN_FOR_MS) state.open.delete(callId);
}
