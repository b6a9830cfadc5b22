import { FactorlyError } from '../base/errors.js';
import { DEFAULT_LOG_ENGINE, placeOf, type LogSettings } from '../config/log-settings.js';
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

/**
 * Refuses, when the config loads, a `log.engine` no plugin provides and a key its engine does not
 * take, naming the file, the line and the key.
 */
export function checkLogEngine(
  settings: LogSettings,
  engines: { get(name: string): LogEngine | undefined; keys(): string[] },
): void {
  if (settings.engine === DEFAULT_LOG_ENGINE) return;
  const engine = engines.get(settings.engine);
  if (!engine) {
    const known = [DEFAULT_LOG_ENGINE, ...engines.keys()].join(', ');
    throw new FactorlyError(
      'CONFIG_INVALID',
      `config: log.engine: no log engine "${settings.engine}" (known: ${known}; is its plugin installed?) (${placeOf(settings.at, 'engine')})`,
    );
  }
  const bad = engine.check(settings.engineOptions);
  if (bad)
    throw new FactorlyError(
      'CONFIG_INVALID',
      `config: log.${bad.key}: ${bad.problem} (${placeOf(settings.at, bad.key)})`,
    );
}
