import { messageOf } from '../base/errors.js';
import type { WriterStarted } from './catalog.js';
import { DelegatingEventLog } from './delegating-log.js';
import { isNewOfType, type NewEvent, type Recorded } from './envelope.js';
import { writerEventId } from './lmdb-inflight.js';
import type { AppendOptions, EventLog } from './log.js';
import { recoverInterrupted } from './recovery.js';
import { thisWriter } from './writer.js';

/** What a writer's events carry its id on: its calls, its sessions, the configurations it loads. */
const STAMPED = new Set<string>(['call.requested', 'session.opened', 'config.loaded']);

/**
 * This process as a writer of a log that outlives it (one that keeps `inflight`): before its first
 * event it records itself (`writer.started`) and closes what writers that are gone left open; its
 * calls and sessions carry its writer id. A completion that could not be written (a full disk) is
 * marked `call.interrupted` at the next append that succeeds, so no call stays "running".
 */
export class WriterLog extends DelegatingEventLog {
  private started = false;
  private recovery?: Promise<unknown>;
  private unrecorded: NewEvent[] = [];

  constructor(
    inner: EventLog,
    readonly identity: WriterStarted = thisWriter(),
    /** What else the writer's record says, asked at its first append (the configuration it runs, its key). */
    private readonly describe: () => Partial<WriterStarted> | Promise<Partial<WriterStarted>> = () => ({}),
  ) {
    super(inner);
  }

  private get persistent(): boolean {
    return this.inner.inflight !== undefined;
  }

  /** Runs once: closes the calls and sessions of writers that have ended. */
  recover(): Promise<unknown> {
    this.recovery ??= this.persistent ? recoverInterrupted(this.inner, this.identity.writer) : Promise.resolve(0);
    return this.recovery;
  }

  async append(events: readonly NewEvent[], options?: AppendOptions): Promise<Recorded[]> {
    if (!this.persistent) return this.inner.append(events, options);
    await this.recover();
    await this.markUnrecorded();
    const stamped = events.map((event) => this.stamp(event));
    // The writer's own record goes with its first batch, also when the conflict handler replaces that batch
    // (one write, not two), and what the conflict handler decides is stamped as well.
    const first = this.started ? [] : [await this.startEvent()];
    const onConflict = options?.onConflict;
    const again =
      onConflict &&
      ((head: number, readFrom: (seq: number) => readonly Recorded[]) => {
        const decided = onConflict(head, readFrom);
        return decided && [...first, ...decided.map((event) => this.stamp(event))];
      });
    const stampedOptions = again ? { ...options, onConflict: again } : options;
    try {
      const recorded = await this.inner.append([...first, ...stamped], stampedOptions);
      this.started = true;
      return recorded.slice(first.length);
    } catch (error) {
      this.remember(stamped, error);
      throw error;
    }
  }

  async close(): Promise<void> {
    // One last try for the marks; if the log still cannot take them, the next process to open it
    // finds these calls open under a writer that has ended and marks them then.
    await this.markUnrecorded().catch(() => undefined);
    await this.inner.close();
  }

  private async startEvent(): Promise<NewEvent> {
    return {
      id: writerEventId(this.identity.writer),
      type: 'writer.started',
      data: { ...this.identity, ...(await this.describe()) },
    };
  }

  private stamp(event: NewEvent): NewEvent {
    if (STAMPED.has(event.type) && (event.data as { writer?: string }).writer === undefined) {
      return { ...event, data: { ...(event.data as object), writer: this.identity.writer } } as NewEvent;
    }
    return event;
  }

  /** Completions in a batch that failed: their calls ran, and must not read as running. */
  private remember(batch: readonly NewEvent[], error: unknown): void {
    for (const event of batch) {
      if (!isNewOfType(event, 'call.completed')) continue;
      const reason = `outcome not recorded: the completion could not be written (${messageOf(error)}); the caller was told`;
      this.unrecorded.push({
        id: `interrupted-${event.data.callId}`,
        type: 'call.interrupted',
        data: { callId: event.data.callId, writer: this.identity.writer, reason },
      });
    }
  }

  private async markUnrecorded(): Promise<void> {
    if (this.unrecorded.length === 0) return;
    await this.inner.append(this.unrecorded);
    this.unrecorded = [];
  }
}
