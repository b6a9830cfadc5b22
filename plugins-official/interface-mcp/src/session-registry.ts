import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Principal } from './principal.js';

/** What the registry needs of a session (an McpSession is one), so that it need not import the session. */
export interface LiveSession {
  readonly id: string;
  /** The agent its calls are recorded under (see McpSession.agentId). */
  readonly agentId: string;
  readonly principal?: Principal;
  readonly client: { name: string; version?: string } | undefined;
  readonly transport: string;
  readonly server: Pick<Server, 'sendToolListChanged'>;
}

/** The slice of the event log a serving interface writes to. */
export interface SessionLog {
  append(events: { type: 'session.opened' | 'session.closed'; data: Record<string, unknown> }[]): Promise<unknown>;
}

/**
 * The live sessions of one `serve`: who to ask for a confirmation, who to tell that the tool list
 * changed, and the calls still running, so a shutdown can wait for them. Opening and closing a
 * session are events (`session.opened` records the agent id, the principal its token named and the
 * client's name and version, a label).
 */
export class SessionRegistry {
  private readonly live = new Map<string, LiveSession>();
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly log: () => SessionLog,
    /** Where a serving interface reports what it could not do (stderr). */
    readonly warn: (message: string) => void,
  ) {}

  get(sessionId: string | undefined): LiveSession | undefined {
    return sessionId === undefined ? undefined : this.live.get(sessionId);
  }

  all(): LiveSession[] {
    return [...this.live.values()];
  }

  async opened(session: LiveSession): Promise<void> {
    this.live.set(session.id, session);
    const { client, principal } = session;
    await this.record('session.opened', {
      sessionId: session.id,
      iface: 'mcp',
      agentId: session.agentId,
      transport: session.transport,
      ...(client ? { client } : {}),
      ...(principal ? { principal: { ...principal } } : {}),
    });
  }

  async closed(session: LiveSession): Promise<void> {
    if (!this.live.delete(session.id)) return;
    await this.record('session.closed', { sessionId: session.id, iface: 'mcp' });
  }

  /** Keeps `work` in the set a shutdown waits for until it settles; returns it unchanged. */
  track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    const done = (): void => void this.inFlight.delete(work);
    work.then(done, done);
    return work;
  }

  /** Resolves once every call running now (and any started meanwhile) has finished. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Tells every session (or the one named) that `tools/list` would now answer differently. */
  async toolsChanged(sessionId?: string): Promise<void> {
    const told =
      sessionId === undefined ? this.all() : [this.live.get(sessionId)].filter((session) => session !== undefined);
    await Promise.allSettled(told.map((session) => session.server.sendToolListChanged()));
  }

  private async record(type: 'session.opened' | 'session.closed', data: Record<string, unknown>): Promise<void> {
    try {
      await this.log().append([{ type, data }]);
    } catch (error) {
      this.warn(
        `could not record ${type} for session ${String(data.sessionId)}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
