import type { AgentDirectory } from 'factorly';
import { html, type Html } from './html.js';

/** Calls no agent made are counted under `iface:<name>` (a terminal's `cli`, the UI's `ui`). */
export const IFACE_KEY = 'iface:';

/** Ids that are UUIDs say nothing to a person (an MCP session's); any other id is a name. */
const OPAQUE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface AgentName {
  /** The client's name and version (`claude-code 1.2.0`), a named agent's name, or what is known instead. */
  name: string;
  /** The first 8 characters of an opaque id, shown beside the name; absent when the name says it all. */
  short?: string;
  /** The key the agents page knows it by: the agent id, or `iface:<name>` for calls without an agent. */
  id: string;
  /** For a named agent: what its client called itself, shown beside the name. */
  label?: string;
}

/** How a person reads an agent id: the client that opened its session (the label `session.opened` gave), not its UUID. */
export function agentName(agentId: string | undefined, agents: AgentDirectory, iface?: string): AgentName {
  if (agentId === undefined) return { name: iface ?? '—', id: `${IFACE_KEY}${iface ?? 'unknown'}` };
  if (agentId.startsWith(IFACE_KEY)) return { name: agentId.slice(IFACE_KEY.length), id: agentId };
  const known = agents.get(agentId);
  // A named agent (a token's name, an OAuth subject) is shown by that name, its client beside it.
  if (known?.principal?.agentId === agentId)
    return { name: agentId, id: agentId, ...(known.client ? { label: clientText(known.client) } : {}) };
  const opaque = OPAQUE.test(agentId);
  const short = opaque ? agentId.slice(0, 8) : undefined;
  if (known?.client) return { name: clientText(known.client), short, id: agentId };
  return { name: opaque ? (known ? `${known.iface} session` : 'agent') : agentId, short, id: agentId };
}

function clientText({ name, version }: { name: string; version?: string }): string {
  return version ? `${name} ${version}` : name;
}

export function agentHref(id: string): string {
  return `/agents/${encodeURIComponent(id)}`;
}

/** The name linked to the agent's page, its client's label or short id beside it, the full id in the title. */
export function agentLabel(agent: AgentName): Html {
  const beside = agent.label
    ? html` <span class="muted">${agent.label}</span>`
    : agent.short
      ? html` <code class="sid">${agent.short}</code>`
      : '';
  return html`<a class="agent" href="${agentHref(agent.id)}" title="${agent.id}"><span class="agent-name">${agent.name}</span>${beside}</a>`;
}

/** As plain text (`claude-code 1.2.0 · 3f2a1b0c`), for option labels. */
export function agentText(agent: AgentName): string {
  if (agent.label) return `${agent.name} · ${agent.label}`;
  return agent.short ? `${agent.name} · ${agent.short}` : agent.name;
}
