import type { CallOrigin, SessionPrincipal } from '../catalog.js';
import type { Projection } from '../projection.js';

/** Who an agent is, as its interface session introduced it (MCP `clientInfo`). */
export interface AgentIdentity {
  agentId: string;
  sessionId: string;
  iface: CallOrigin;
  /** The client's own name and version, when it gave them: a label, never the identity. */
  client?: { name: string; version?: string };
  /** How the agent was authenticated, when a credential named it (then `agentId` is its name). */
  principal?: SessionPrincipal;
  transport?: string;
  openedAt: string;
}

/** Agents by the id their calls are recorded under (an authenticated agent opens many sessions: the newest wins). */
export type AgentDirectory = Map<string, AgentIdentity>;

/**
 * The agents that connected, folded from `session.opened`: what lets every view name a call's agent
 * ("claude-code 1.2.0") instead of showing its session UUID. Closing a session keeps its entry, since
 * its calls stay in the log. It grows by one small entry per session.
 */
export const sessionsProjection: Projection<AgentDirectory> & { readonly version: number } = {
  module: import.meta.url,
  name: 'sessions',
  version: 2,
  init: () => new Map(),
  evolve(agents, event) {
    if (event.type !== 'session.opened') return agents;
    const { agentId, sessionId, iface, client, transport, principal } = event.data;
    if (typeof agentId !== 'string' || agentId === '') return agents;
    const name = typeof client?.name === 'string' && client.name !== '' ? client.name : undefined;
    agents.set(agentId, {
      agentId,
      sessionId,
      iface,
      ...(name
        ? { client: { name, ...(typeof client?.version === 'string' ? { version: client.version } : {}) } }
        : {}),
      ...(transport ? { transport } : {}),
      ...(principal && typeof principal.kind === 'string' ? { principal } : {}),
      openedAt: event.at,
    });
    return agents;
  },
};
