import type { BatchStream } from '../events/batch-stream.js';
import type { Durability, EventLog } from '../events/log.js';
import type { ReplicatedLogOptions } from '../events/replicated-log.js';
import type { ProjectPaths } from '../config/paths.js';

/** What an engine is given to open the project's log. */
export interface LogEngineContext {
  /** The engine's own keys of the `log:` block, as written (already accepted by `check`). */
  options: Readonly<Record<string, unknown>>;
  paths: ProjectPaths;
  durability: Durability;
  /** Resolves a secret reference (a `{{<backend>:KEY}}` reference) when the log is first used; never recorded. */
  secret(template: string): Promise<string>;
  /**
   * The event log over a stream of batches several nodes share (the chain, conditional appends,
   * projections, the tree): for an engine that brings only the transport.
   */
  replicated(stream: BatchStream, options?: ReplicatedLogOptions): EventLog;
  /** Tells the person running factorly something about the log they should know (on stderr, as a warning). */
  warn(message: string): void;
}

/** A bad key of the engine's part of the `log:` block. */
export interface LogOptionProblem {
  key: string;
  problem: string;
}

/**
 * Where the event log lives, chosen by `log: {engine: <name>}` (`lmdb`, the project's file, is
 * built in). An engine declares the keys of the `log:` block it reads besides the kernel's own.
 */
export interface LogEngine {
  readonly name: string;
  /** The first bad key of the engine's options, or undefined: checked when the config loads. */
  check(options: Readonly<Record<string, unknown>>): LogOptionProblem | undefined;
  /**
   * Opens the log. Synchronous: a networked log connects on first use, and an append it cannot
   * make is refused then (the call is refused before its tool runs).
   */
  open(context: LogEngineContext): EventLog;
}
