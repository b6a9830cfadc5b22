import type { McpSessionLink } from '@factorly/plugin-interface-mcp/api';
import type { McpForwarded } from 'factorly';
import type { Scrubber } from './scrubber.js';

/** Records one forwarded request (`mcp.forwarded`) in the event log. */
export type ForwardRecorder = (event: McpForwarded) => Promise<void>;

/** The agent sessions an MCP interface told us about, the log level each asked for, and what every hop to them shares. */
export class Sessions {
  private readonly open = new Map<string, McpSessionLink>();
  private readonly levels = new Map<string, string>();

  constructor(
    readonly record: ForwardRecorder,
    readonly scrub: Scrubber,
  ) {}

  get(sessionId: string): McpSessionLink | undefined {
    return this.open.get(sessionId);
  }

  /** Every open session, oldest first. */
  all(): McpSessionLink[] {
    return [...this.open.values()];
  }

  add(session: McpSessionLink): void {
    this.open.set(session.sessionId, session);
  }

  remove(sessionId: string): void {
    this.open.delete(sessionId);
    this.levels.delete(sessionId);
  }

  /** The level set by `logging/setLevel`, re-applied to upstream connections opened later for the session. */
  level(sessionId: string): string | undefined {
    return this.levels.get(sessionId);
  }

  setLevel(sessionId: string, level: string): void {
    this.levels.set(sessionId, level);
  }
}
