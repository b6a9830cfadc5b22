import { writeStderrLine } from '@factorly/text-kit';
import type { AuditEntry, EventLog, Recorded, HostServices, Unsubscribe } from 'factorly';
import type { Approvals } from './approvals.js';

export type LiveListener = (update: { kind: 'call'; entry: AuditEntry } | { kind: 'approvals' }) => void;

const CALL_EVENTS = new Set(['call.requested', 'call.completed', 'call.interrupted', 'shadow.decided']);

/**
 * Follows the event log from where it stood when the UI started, so calls made by any process
 * (a `factorly call` in a terminal, an MCP server, this UI) reach the open pages. The log's own
 * subscription sees other processes' appends, which this process's event bus never does. Events
 * are handled one at a time, in seq order.
 */
export class LiveFeed {
  private readonly listeners = new Set<LiveListener>();
  private unsubscribe?: Unsubscribe;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly log: EventLog,
    private readonly services: HostServices,
    private readonly approvals: Approvals,
  ) {
    approvals.onChange(() => this.emit({ kind: 'approvals' }));
  }

  async start(): Promise<void> {
    const { seq } = await this.log.head();
    await this.approvals.recover();
    this.unsubscribe = this.log.subscribe(seq + 1, (event) => {
      this.queue = this.queue
        .then(() => this.handle(event))
        .catch((error: unknown) => {
          writeStderrLine('factorly ui: ', `could not show event ${event.seq}: ${String(error)}`);
        });
    });
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.listeners.clear();
    await this.queue;
  }

  on(listener: LiveListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async handle(event: Recorded): Promise<void> {
    await this.approvals.apply(event);
    if (!CALL_EVENTS.has(event.type) || this.listeners.size === 0) return;
    const entry = await this.services.call((event.data as { callId: string }).callId);
    if (entry) this.emit({ kind: 'call', entry });
  }

  private emit(update: Parameters<LiveListener>[0]): void {
    for (const listener of this.listeners) listener(update);
  }
}
