/** How a `ReplicatedEventLog` is opened. */
export interface ReplicatedLogOptions {
  clock?: () => Date;
  /**
   * How long one call may wait on the stream in all (every append it makes, and the catching up
   * before them), in ms; an append of no call's events has as long of its own.
   */
  timeoutMs?: number;
  /**
   * false: it keeps no snapshots beside the stream, so it writes only what it is given: a copy's
   * target (`logs migrate`, holding exactly the events copied), a log opened to verify. Default true.
   */
  snapshots?: boolean;
}
