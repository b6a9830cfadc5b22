import type { NewEvent, Recorded } from './envelope.js';
import type { EventBus } from './bus.js';
import { DelegatingEventLog } from './delegating-log.js';
import type { AppendOptions, EventLog } from './log.js';

/** Wraps any `EventLog` so that every append is published on the bus once it is stored (log first, bus second). */
export class PublishingEventLog extends DelegatingEventLog {
  constructor(
    inner: EventLog,
    private readonly bus: EventBus,
  ) {
    super(inner);
  }

  async append(events: readonly NewEvent[], options?: AppendOptions): Promise<Recorded[]> {
    const recorded = await this.inner.append(events, options);
    this.bus.publish(recorded);
    return recorded;
  }
}
