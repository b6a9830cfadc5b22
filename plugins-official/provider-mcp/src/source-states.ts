import { messageOf } from '@factorly/error-kit';
import { writeStderrLine } from '@factorly/text-kit';
import type { SourceStatus } from 'factorly';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { LoginRequiredError } from './login.js';
import type { Upstream } from './upstream.js';

/** The first retry of a failed server waits this long; each next one twice as long, up to the cap. */
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 60_000;

interface Kept {
  status: SourceStatus;
  attempt: number;
  timer?: NodeJS.Timeout;
}

/**
 * Where each upstream server stands. A server that cannot be listed (it refuses connections, needs
 * a login, hangs at initialize, dies) contributes no tools and breaks nothing else: its state says
 * why, and one line on stderr names it. While an agent is served (`arm`) it is tried again with
 * backoff (1 s, doubling, at most a minute); when it answers, its tools go to `recovered` (the
 * catalogue, which tells agents with `list_changed`). The timers never keep a process alive, and
 * `stop` ends them.
 */
export class SourceStates {
  private readonly kept = new Map<string, Kept>();
  private stopped = false;
  /** Retries wait for an agent to serve (a one-shot command such as `factorly tools` reports, and ends). */
  private armed = false;
  private readonly waiting = new Map<string, Upstream>();

  constructor(
    private readonly recovered: (upstream: Upstream, tools: Tool[]) => void,
    /** Scrubs the secrets the server was started with from why it failed (its stderr may echo its env). */
    private readonly scrub: (text: string, upstream: Upstream) => Promise<string>,
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

  /** The entry went from the config (or its server was replaced): no more retries for it. */
  forget(name: string): void {
    clearTimeout(this.kept.get(name)?.timer);
    this.kept.delete(name);
    this.waiting.delete(name);
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
    const kept: Kept = { status, attempt };
    this.kept.set(upstream.name, kept);
    if (before?.status.reason !== status.reason)
      writeStderrLine(
        'factorly: ',
        `upstream MCP server "${upstream.name}" is left out (${status.state}): ${status.reason}`,
        {
          oneLine: true,
        },
      );
    if (this.stopped) return;
    if (this.armed) this.schedule(upstream, kept);
    else this.waiting.set(upstream.name, upstream);
  }

  private schedule(upstream: Upstream, kept: Kept): void {
    const delay = Math.min(FIRST_RETRY_MS * 2 ** (kept.attempt - 1), MAX_RETRY_MS);
    kept.timer = setTimeout(() => void this.retry(upstream, kept), delay);
    kept.timer.unref();
  }

  private async retry(upstream: Upstream, kept: Kept): Promise<void> {
    if (this.stopped || this.kept.get(upstream.name) !== kept) return;
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
