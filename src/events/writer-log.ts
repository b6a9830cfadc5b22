import { messageOf } from '../kernel/base/errors.js';
import type { EventType, WriterStarted } from './catalog.js';
import type { NewEvent, Recorded } from './envelope.js';
import { writerEventId } from './lmdb-inflight.js';
import type { AppendOptions, EventLog, LogHead, ReadRange, Unsubscribe } from './log.js';
import { recoverInterrupted } from './recovery.js';
import type { LogTree } from './transparency-tree.js';
import { thisWriter, type Inflight } from './writer.js';

/** What a writer's events carry its id on: its calls, its sessions, the configurations it loads. */
const STAMPED = new Set<string>(['call.requested', 'session.opened', 'config.loaded']);

/**
 * This process as a writer of a log that outlives it (one that keeps `inflight`): before its first
 * event it records itself (`writer.started`) and closes what writers that are gone left open; its
 * calls and sessions carry its writer id. A completion that could not be written (a full disk) is
 * marked `call.interrupted` at the next append that succeeds, so no call stays "running".
 */
export class WriterLog implements EventLog {
  private started = false;
  private recovery?: Promise<unknown>;
  private unrecorded: NewEvent[] = [];

  constructor(
    private readonly inner: EventLog,
    readonly identity: WriterStarted = thisWriter(),
    /** What else the writer's record says, asked at its first append (the configuration it runs). */
    private readonly describe: () => Partial<WriterStarted> = () => ({}),
  ) {}

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
    // A rebase may replace the batch: the writer's own record then goes in an append of its own,
    // and what the rebase decides is stamped as well.
    const rebase = options?.rebase;
    const first = !this.started && !rebase ? [this.startEvent()] : [];
    if (!this.started && rebase) await this.inner.append([this.startEvent()]);
    const stampedOptions = rebase ? { ...options, rebase: (head: number, readFrom: (seq: number) => readonly Recorded[]) => rebase(head, readFrom)?.map((event) => this.stamp(event)) } : options;
    try {
      const recorded = await this.inner.append([...first, ...stamped], stampedOptions);
      this.started = true;
      return recorded.slice(first.length);
    } catch (error) {
      this.remember(stamped, error);
      throw error;
    }
  }

  read(range?: ReadRange): AsyncIterable<Recorded> {
    return this.inner.read(range);
  }

  readCall(callId: string): Promise<Recorded[]> {
    return this.inner.readCall(callId);
  }

  lastOf<T extends EventType>(type: T): Promise<Recorded<T> | undefined> {
    return this.inner.lastOf(type);
  }

  head(): Promise<LogHead> {
    return this.inner.head();
  }

  attestedHead(): Promise<LogHead | undefined> {
    return this.inner.attestedHead?.() ?? Promise.resolve(undefined);
  }

  tree(): Promise<LogTree> {
    if (!this.inner.tree) return Promise.reject(new Error('this event log keeps no Merkle tree'));
    return this.inner.tree();
  }

  inflight(): Promise<Inflight> {
    return this.inner.inflight?.() ?? Promise.resolve({ calls: [], sessions: [], writers: new Map() });
  }

  subscribe(fromSeq: number, listener: (event: Recorded) => void): Unsubscribe {
    return this.inner.subscribe(fromSeq, listener);
  }

  async close(): Promise<void> {
    // One last try for the marks; if the log still cannot take them, the next process to open it
    // finds these calls open under a writer that has ended and marks them then.
    await this.markUnrecorded().catch(() => undefined);
    await this.inner.close();
  }

  private startEvent(): NewEvent {
    return { id: writerEventId(this.identity.writer), type: 'writer.started', data: { ...this.identity, ...this.describe() } };
  }

  private stamp(event: NewEvent): NewEvent {
    if (STAMPED.has(event.type) && (event.data as { writer?: string }).writer === undefined) {
      return { ...event, data: { ...event.data, writer: this.identity.writer } } as NewEvent;
    }
    return event;
  }

  /** Completions in a batch that failed: their calls ran, and must not read as running. */
  private remember(batch: readonly NewEvent[], error: unknown): void {
    for (const event of batch) {
      if (event.type !== 'call.completed') continue;
      const reason = `outcome not recorded: the completion could not be written (${messageOf(error)}); the caller was told`;
      this.unrecorded.push({ id: `interrupted-${event.data.callId}`, type: 'call.interrupted', data: { callId: event.data.callId, writer: this.identity.writer, reason } });
    }
  }

  private async markUnrecorded(): Promise<void> {
    if (this.unrecorded.length === 0) return;
    await this.inner.append(this.unrecorded);
    this.unrecorded = [];
  }
}
