import type { AgentDirectory } from 'factorly';
import { html, type Html } from './html.js';

/** Calls no agent made are counted under `iface:<name>` (a terminal's `cli`, the UI's `ui`). */
export const IFACE_KEY = 'iface:';

/** Ids that are UUIDs say nothing to a person (an MCP session's); any other id is a name (a token's). */
const OPAQUE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface AgentName {
  /** The client's name and version (`claude-code 1.2.0`), or what is known instead. */
  name: string;
  /** The first 8 characters of an opaque id, shown beside the name; absent when the name says it all. */
  short?: string;
  /** The key the agents page knows it by: the agent id, or `iface:<name>` for calls without an agent. */
  id: string;
}

/** How a person reads an agent id: the client that opened its session (the label `session.opened` gave), not its UUID. */
export function agentName(agentId: string | undefined, agents: AgentDirectory, iface?: string): AgentName {
  if (agentId === undefined) return { name: iface ?? '—', id: `${IFACE_KEY}${iface ?? 'unknown'}` };
  if (agentId.startsWith(IFACE_KEY)) return { name: agentId.slice(IFACE_KEY.length), id: agentId };
  const known = agents.get(agentId);
  const opaque = OPAQUE.test(agentId);
  const short = opaque ? agentId.slice(0, 8) : undefined;
  if (!known?.client) {
    const name = opaque ? (known ? `${known.iface} session` : 'agent') : agentId;
    return { name, short, id: agentId };
  }
  const { name, version } = known.client;
  const label = version ? `${name} ${version}` : name;
  // A named principal (a token, an OAuth subject) is shown with the client it used.
  return { name: opaque || label === agentId ? label : `${agentId} · ${label}`, short, id: agentId };
}

export function agentHref(id: string): string {
  return `/agents/${encodeURIComponent(id)}`;
}

/** The name linked to the agent's page, its short id beside it, the full id in the title. */
export function agentLabel(agent: AgentName): Html {
  return html`<a class="agent" href="${agentHref(agent.id)}" title="${agent.id}"><span class="agent-name">${agent.name}</span>${agent.short ? html` <code class="sid">${agent.short}</code>` : ''}</a>`;
}

/** As plain text (`claude-code 1.2.0 · 3f2a1b0c`), for option labels. */
export function agentText(agent: AgentName): string {
  return agent.short ? `${agent.name} · ${agent.short}` : agent.name;
}
