import { messageOf } from '@factorly/error-kit';
import { writeStderrLine } from '@factorly/text-kit';
import type { SourceStatus } from 'factorly';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { LoginRequiredError } from './login.js';
import type { Upstream } from './upstream.js';

/** The first retry of a failed server waits this long; each next one twice as long, up to the cap. */
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 60_000;
/** How often a server waiting for a login looks for one in the token store (a local read, no request). */
const LOGIN_WATCH_MS = 1_000;

interface Kept {
  status: SourceStatus;
  attempt: number;
  timer?: NodeJS.Timeout;
  /** For a server waiting for a login: the stored login it was refused with (none: there was none). */
  mark?: string;
  /** While `retrying`: the state it is retried from. */
  from?: SourceStatus['state'];
}

/**
 * Where each upstream server stands. A server that cannot be listed (it refuses connections, needs
 * a login, hangs at initialize, dies) contributes no tools and breaks nothing else: its state says
 * why, and one line on stderr names it. While an agent is served (`arm`) it is tried again with
 * backoff (1 s, doubling, at most a minute); when it answers, its tools go to `recovered` (the
 * catalogue, which tells agents with `list_changed`). A server that needs a login and has one in
 * the oauth plugin's store is not asked again until a new login is stored (`factorly auth login` in
 * another process, or an agent's URL elicitation), which is looked for every second. The timers
 * never keep a process alive, and `stop` ends them.
 */
export class SourceStates {
  private readonly kept = new Map<string, Kept>();
  private stopped = false;
  /** Retries wait for an agent to serve (a one-shot command such as `factorly tools` reports, and ends). */
  private armed = false;
  private readonly waiting = new Map<string, Upstream>();
  /** The server of each state kept (for a retry asked for by name). */
  private readonly upstreamOf = new Map<string, Upstream>();

  constructor(
    private readonly recovered: (upstream: Upstream, tools: Tool[]) => void,
    /** Scrubs the secrets the server was started with from why it failed (its stderr may echo its env). */
    private readonly scrub: (text: string, upstream: Upstream) => Promise<string>,
    /** Told when a server comes to need a login while an agent is served. */
    private readonly needsLogin: (upstream: Upstream) => void = () => undefined,
  ) {}

  /** The server's tools, or none when it cannot be listed (then it is retried). */
  async list(upstream: Upstream): Promise<Tool[]> {
    const pending = this.kept.get(upstream.name);
    try {
      const tools = await upstream.listTools();
      clearTimeout(pending?.timer);
      this.waiting.delete(upstream.name);
      this.kept.set(upstream.name, { status: this.status(upstream, 'connected'), attempt: 0 });
      return tools;
    } catch (error) {
      await this.failed(upstream, error);
      return [];
    }
  }

  statuses(): SourceStatus[] {
    return [...this.kept.values()].map((kept) => kept.status);
  }

  /** The servers waiting for a login, by name. */
  waitingForLogin(): string[] {
    return [...this.kept.values()]
      .filter((kept) => kept.status.state === 'needs_login')
      .map((kept) => kept.status.name);
  }

  /** A login for the server was just made in this process: try it now. */
  retryNow(name: string): void {
    const kept = this.kept.get(name);
    const upstream = kept && this.upstreamOf.get(name);
    if (!kept || !upstream || this.stopped) return;
    clearTimeout(kept.timer);
    void this.retry(upstream, kept);
  }

  /** The entry went from the config (or its server was replaced): no more retries for it. */
  forget(name: string): void {
    clearTimeout(this.kept.get(name)?.timer);
    this.kept.delete(name);
    this.waiting.delete(name);
    this.upstreamOf.delete(name);
  }

  /** From now on, a server that failed is retried (those that failed already, after the first delay). */
  arm(): void {
    if (this.armed) return;
    this.armed = true;
    for (const upstream of this.waiting.values()) {
      const kept = this.kept.get(upstream.name);
      if (kept) this.schedule(upstream, kept);
    }
    this.waiting.clear();
  }

  stop(): void {
    this.stopped = true;
    for (const kept of this.kept.values()) clearTimeout(kept.timer);
  }

  private async failed(upstream: Upstream, error: unknown): Promise<void> {
    const before = this.kept.get(upstream.name);
    clearTimeout(before?.timer);
    const reason = await this.scrub(messageOf(error), upstream);
    const status =
      error instanceof LoginRequiredError
        ? {
            ...this.status(upstream, 'needs_login', reason),
            ...(error.challenge.resourceMetadata ? { resourceMetadata: error.challenge.resourceMetadata } : {}),
          }
        : this.status(upstream, 'failing', reason);
    const attempt = (before?.attempt ?? 0) + 1;
    const mark = status.state === 'needs_login' ? await upstream.auth?.loginMark().catch(() => undefined) : undefined;
    const kept: Kept = { status, attempt, ...(mark === undefined ? {} : { mark }) };
    this.kept.set(upstream.name, kept);
    this.upstreamOf.set(upstream.name, upstream);
    const was = before?.status.state === 'retrying' ? before.from : before?.status.state;
    if (status.state === 'needs_login' && was !== 'needs_login' && this.armed) this.needsLogin(upstream);
    if (before?.status.reason !== status.reason)
      writeStderrLine(
        'factorly: ',
        `upstream MCP server "${upstream.name}" is left out (${status.state}): ${status.reason}`,
        {
          oneLine: true,
        },
      );
    if (this.stopped) return;
    // Waiting for a login costs no request: a process that serves no agent (the web UI) watches too.
    if (this.armed || (status.state === 'needs_login' && upstream.auth)) this.schedule(upstream, kept);
    else this.waiting.set(upstream.name, upstream);
  }

  private schedule(upstream: Upstream, kept: Kept): void {
    if (kept.status.state === 'needs_login' && upstream.auth) return this.watchLogin(upstream, kept);
    const delay = Math.min(FIRST_RETRY_MS * 2 ** (kept.attempt - 1), MAX_RETRY_MS);
    kept.timer = setTimeout(() => void this.retry(upstream, kept), delay);
    kept.timer.unref();
  }

  /** Waits for a login other than the one refused to be stored, then tries the server again. */
  private watchLogin(upstream: Upstream, kept: Kept): void {
    kept.timer = setTimeout(() => {
      void (async () => {
        const mark = await upstream.auth?.loginMark().catch(() => undefined);
        if (this.stopped || this.kept.get(upstream.name) !== kept) return;
        if (mark !== undefined && mark !== kept.mark) await this.retry(upstream, kept);
        else this.watchLogin(upstream, kept);
      })();
    }, LOGIN_WATCH_MS);
    kept.timer.unref();
  }

  private async retry(upstream: Upstream, kept: Kept): Promise<void> {
    if (this.stopped || this.kept.get(upstream.name) !== kept) return;
    kept.from = kept.status.state;
    kept.status = { ...kept.status, state: 'retrying' };
    try {
      const tools = await upstream.listTools();
      if (this.stopped || this.kept.get(upstream.name) !== kept) return;
      this.kept.set(upstream.name, { status: this.status(upstream, 'connected'), attempt: 0 });
      writeStderrLine('factorly: ', `upstream MCP server "${upstream.name}" is connected again; its tools are served`);
      this.recovered(upstream, tools);
    } catch (error) {
      if (!this.stopped && this.kept.get(upstream.name) === kept) await this.failed(upstream, error);
    }
  }

  private status(upstream: Upstream, state: SourceStatus['state'], reason?: string): SourceStatus {
    return { name: upstream.name, type: 'mcp', state, ...(reason === undefined ? {} : { reason }) };
  }
}
