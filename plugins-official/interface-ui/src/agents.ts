import type { AgentDirectory } from 'factorly';
import { html, type Html } from './html.js';

/** Calls no agent made are counted under `iface:<name>` (a terminal's `cli`, the UI's `ui`). */
const IFACE_KEY = 'iface:';

export interface AgentName {
  /** The client's name and version (`claude-code 1.2.0`), or what is known instead. */
  name: string;
  /** The first 8 characters of the session id, shown beside the name; absent when there is none. */
  short?: string;
  /** The full id, for titles and filters. */
  id?: string;
  /** For a named agent: what its client called itself, shown beside the name. */
  label?: string;
}

/** How a person reads an agent id: the client that opened its session, not its UUID. */
export function agentName(agentId: string | undefined, agents: AgentDirectory, iface?: string): AgentName {
  if (agentId === undefined) return { name: iface ?? '—' };
  if (agentId.startsWith(IFACE_KEY)) return { name: agentId.slice(IFACE_KEY.length) };
  const known = agents.get(agentId);
  // A named agent (a token's name, an OAuth subject) is shown by that name, its client beside it.
  if (known?.principal?.agentId === agentId)
    return { name: agentId, ...(known.client ? { label: clientText(known.client) } : {}) };
  const short = agentId.slice(0, 8);
  if (!known?.client) return { name: known ? `${known.iface} session` : 'agent', short, id: agentId };
  return { name: clientText(known.client), short, id: agentId };
}

function clientText({ name, version }: { name: string; version?: string }): string {
  return version ? `${name} ${version}` : name;
}

/** The name with its short id beside it, the full id in the title. */
export function agentLabel(agent: AgentName): Html {
  if (agent.label) return html`<span class="agent">${agent.name} <span class="muted">${agent.label}</span></span>`;
  if (!agent.short) return html`<span class="agent">${agent.name}</span>`;
  return html`<span class="agent" title="${agent.id}">${agent.name} <code class="sid">${agent.short}</code></span>`;
}

/** As plain text (`claude-code 1.2.0 · 3f2a1b0c`), for option labels. */
export function agentText(agent: AgentName): string {
  if (agent.label) return `${agent.name} · ${agent.label}`;
  return agent.short ? `${agent.name} · ${agent.short}` : agent.name;
}
