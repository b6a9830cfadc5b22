import { EventEmitter } from 'eventemitter3';
import type { EventType } from './catalog.js';
import type { Recorded } from './envelope.js';

type BusEvents = { [K in EventType]: (event: Recorded<K>) => void } & {
  '*': (event: Recorded) => void;
  'listener.failed': (error: unknown, event: Recorded) => void;
};

/**
 * Live, in-process delivery of events that are already in the log. Only `publish` emits, and only
 * recorded events reach it, so a live listener and a replay see the same input. A listener that
 * throws is reported on `listener.failed` and never breaks the call that appended the event.
 */
export class EventBus {
  private readonly emitter = new EventEmitter<BusEvents>();

  on<K extends EventType>(type: K, listener: (event: Recorded<K>) => unknown): () => void {
    return this.listen(type, listener as (event: Recorded) => unknown);
  }

  /** Every event, whatever its type. */
  onAny(listener: (event: Recorded) => unknown): () => void {
    return this.listen('*', listener);
  }

  private listen(type: EventType | '*', listener: (event: Recorded) => unknown): () => void {
    const guarded = (event: Recorded): void => {
      try {
        const result = listener(event);
        if (result instanceof Promise) result.catch((error: unknown) => this.fail(error, event));
      } catch (error) {
        this.fail(error, event);
      }
    };
    this.emitter.on(type as EventType, guarded as never);
    return () => this.emitter.off(type as EventType, guarded as never);
  }

  onListenerFailed(listener: BusEvents['listener.failed']): () => void {
    this.emitter.on('listener.failed', listener);
    return () => this.emitter.off('listener.failed', listener);
  }

  publish(events: readonly Recorded[]): void {
    for (const event of events) {
      this.emitter.emit(event.type, event as never);
      this.emitter.emit('*', event);
    }
  }

  private fail(error: unknown, event: Recorded): void {
    this.emitter.emit('listener.failed', error, event);
  }
}
