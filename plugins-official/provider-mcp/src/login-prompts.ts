import { randomUUID } from 'node:crypto';
import { messageOf } from '@factorly/error-kit';
import { writeStderrLine } from '@factorly/text-kit';
import type { McpSessionLink } from '@factorly/plugin-interface-mcp/api';
import type { OAuthUpstreams } from '@factorly/plugin-oauth/api';

/** How long the person has to open the page and log in (the login's own limit is the same). */
const LOGIN_WAIT_MS = 120_000;

/** Whether the agent's client can open a URL for its person (MCP 2025-11-25 URL-mode elicitation). */
function opensUrls(session: McpSessionLink): boolean {
  const elicitation = session.capabilities.elicitation as { url?: unknown } | undefined;
  return elicitation?.url !== undefined;
}

/**
 * Asks the person behind an agent to log in to an upstream MCP server that waits for a login, when
 * the agent's client can open a URL (URL-mode elicitation): the oauth plugin's login runs here, the
 * authorization URL goes to the client, the redirect comes back to this process's loopback
 * callback, and the server is tried again at once. One login per server at a time; a client that
 * declines leaves the stderr line saying what to run.
 */
export class LoginPrompts {
  private readonly asking = new Set<string>();

  constructor(
    private readonly logins: OAuthUpstreams | undefined,
    private readonly loggedIn: (server: string) => void,
  ) {}

  /** Offers each waiting server's login to the first of `sessions` whose client can open a URL. */
  offer(sessions: readonly McpSessionLink[], waiting: readonly string[]): void {
    const session = sessions.find(opensUrls);
    if (!this.logins || !session) return;
    for (const server of waiting) if (!this.asking.has(server)) void this.ask(this.logins, session, server);
  }

  private async ask(logins: OAuthUpstreams, session: McpSessionLink, server: string): Promise<void> {
    this.asking.add(server);
    const elicitationId = randomUUID();
    const declined = new AbortController();
    try {
      await logins.login(server, {
        signal: declined.signal,
        timeoutMs: LOGIN_WAIT_MS,
        open: async (url) => {
          const message = `factorly: the MCP server "${server}" needs you to log in. Open the page to authorize factorly; its tools then appear.`;
          const answer = await session.request(
            'elicitation/create',
            { mode: 'url', elicitationId, url, message },
            undefined,
            LOGIN_WAIT_MS,
          );
          if (answer.action !== 'accept') declined.abort();
        },
      });
      await session.notify('notifications/elicitation/complete', { elicitationId }).catch(() => undefined);
      this.loggedIn(server);
    } catch (error) {
      const why = declined.signal.aborted ? 'the agent did not open the login page' : messageOf(error);
      writeStderrLine(
        'factorly: ',
        `upstream MCP server "${server}" still needs a login (${why}); run: factorly auth login ${server}`,
      );
    } finally {
      this.asking.delete(server);
    }
  }
}
