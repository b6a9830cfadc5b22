import type { EventLog } from './log.js';
import type { Projection } from './projection.js';
import { upcast } from './upcast.js';

/**
 * A projection kept current in one process: the first read folds the log from seq 1, each later
 * read folds only what was appended since (by any process). Reads are serialised, so two requests
 * never fold the same events twice. The state returned is the follower's own: read it at once,
 * do not keep it across an `await`.
 */
export class ProjectionFollower<S> {
  private state: S;
  private seq = 0;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly log: EventLog,
    private readonly projection: Projection<S>,
  ) {
    this.state = projection.init();
  }

  current(): Promise<{ seq: number; state: S }> {
    const next = this.queue.then(() => this.catchUp());
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async catchUp(): Promise<{ seq: number; state: S }> {
    for await (const event of this.log.read({ from: this.seq + 1 })) {
      this.state = this.projection.evolve(this.state, upcast(event));
      this.seq = event.seq;
    }
    return { seq: this.seq, state: this.state };
  }
}
