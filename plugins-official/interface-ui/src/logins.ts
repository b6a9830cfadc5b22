import type { OAuthClient, OAuthProviderStatus } from 'factorly';
import { messageOf } from './messages.js';

/** How a login started from the Auth page ended (kept for the page the browser lands on). */
export type LoginEnd = { status: OAuthProviderStatus } | { error: string };

interface Pending {
  controller: AbortController;
  ended: Promise<LoginEnd>;
}

/**
 * Logins the Auth page started: each runs in this process (its loopback callback listens here), the
 * browser goes to the authorization URL, and the callback sends it back to the page, which waits for
 * the token exchange to end before it shows the state. A new login for the same name cancels the old.
 */
export class PendingLogins {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly oauth: OAuthClient) {}

  /** Starts a login; resolves with the authorization URL to send the browser to, or how it failed first. */
  async start(name: string, returnTo: string): Promise<{ url: string } | { error: string }> {
    this.pending.get(name)?.controller.abort();
    const controller = new AbortController();
    let opened!: (url: string) => void;
    const url = new Promise<string>((resolve) => (opened = resolve));
    const ended: Promise<LoginEnd> = this.oauth
      .login(name, { open: (to) => opened(to), returnTo, signal: controller.signal })
      .then(
        (status) => ({ status }),
        (error: unknown) => ({ error: messageOf(error) }),
      );
    const entry = { controller, ended };
    this.pending.set(name, entry);
    void ended.then(() =>
      setTimeout(() => this.pending.get(name) === entry && this.pending.delete(name), 60_000).unref(),
    );
    return Promise.race([
      url.then((to) => ({ url: to })),
      ended.then((end) => ('error' in end ? end : { error: 'the login ended before it began' })),
    ]);
  }

  /** How the named login ended, once it has (within `waitMs`); undefined when none is known. */
  async ended(name: string, waitMs = 15_000): Promise<LoginEnd | undefined> {
    const entry = this.pending.get(name);
    if (!entry) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), waitMs)));
    try {
      return await Promise.race([entry.ended, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends every login still waiting (the UI is shutting down). */
  cancelAll(): void {
    for (const entry of this.pending.values()) entry.controller.abort();
    this.pending.clear();
  }
}
